import type { TestAudioContentHandler } from '../generated/tools/test_audio_content.gen.ts';
import { WAV_BASE64 } from '../fixtures.ts';

/** Returns an audio content block (a tiny WAV, base64). */
export const handler: TestAudioContentHandler = async () => ({
  content: [{ type: 'audio', data: WAV_BASE64, mimeType: 'audio/wav' }],
});
