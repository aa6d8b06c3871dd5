/**
 * Summarizes a V8 .cpuprofile of the server: where the busy (non-idle) time goes, by area
 * (runtime/, app/, generated/, each package, Node internals, GC), which project functions cost
 * the most including what they call, and which project frame each sample belongs to (a sample in
 * a library is charged to the nearest project function above it, so kysely's time spent for
 * listProfiles lands on listProfiles; work resumed after an await has no project caller on its
 * stack and is charged to the nearest package function instead). Frames of a bundle with a source
 * map beside it (dist/main.js and its chunks, which `npm start` runs) are named by the sources it
 * was built from.
 *   node --import tsx bench/profile-summary.ts bench/results/real-server.cpuprofile
 */
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { table } from './lib/report.ts';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function filePath(url: string): string {
  if (url.startsWith('file://')) {
    try {
      return fileURLToPath(url.split('?')[0]!);
    } catch {
      return url;
    }
  }
  return url;
}

/**
 * Maps a frame of a bundle to the source it was built from, through the `.map` beside the bundle.
 * The sources a map names are taken as inside `root` (every bundle here is built from the project,
 * and the benchmark's own bundles live in another folder than dist/): leading `../` are dropped.
 */
function sourceMapper(root: string): (frame: CallFrame) => CallFrame {
  const maps = new Map<string, SourceMap | null>();
  return (frame) => {
    if (!frame.url.startsWith('file://') || frame.lineNumber < 0) return frame;
    const bundle = filePath(frame.url);
    // A package's own maps (OpenTelemetry ships them) point into that package, not the project: its frames keep their package.
    if (bundle.includes(`${path.sep}node_modules${path.sep}`)) return frame;
    let map = maps.get(bundle);
    if (map === undefined) {
      map = existsSync(`${bundle}.map`) ? new SourceMap(JSON.parse(readFileSync(`${bundle}.map`, 'utf8'))) : null;
      maps.set(bundle, map);
    }
    const entry = map?.findEntry(frame.lineNumber, frame.columnNumber);
    if (!entry || !('originalSource' in entry) || !entry.originalSource) return frame;
    const source = path.join(root, entry.originalSource.replace(/^(\.\.\/)+/, ''));
    return { ...frame, url: pathToFileURL(source).href, lineNumber: entry.originalLine, columnNumber: entry.originalColumn };
  };
}

export function summarizeProfile(file: string, root: string, top = 15): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const toSource = sourceMapper(root);
  for (const n of profile.nodes) n.callFrame = toSource(n.callFrame);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  const projectDirs = ['runtime', 'app', 'generated'].map((d) => path.join(root, d) + path.sep);
  const isProject = (n: ProfileNode) => {
    const f = filePath(n.callFrame.url);
    return projectDirs.some((d) => f.startsWith(d));
  };
  const rel = (n: ProfileNode) => path.relative(root, filePath(n.callFrame.url));
  // tsx emits each module on one line, so line numbers say nothing: name and file only.
  const label = (n: ProfileNode) => `${n.callFrame.functionName || '(anonymous)'} ${rel(n)}`;
  const libLabel = (n: ProfileNode) => `${area(n).replace(/^pkg /, '')}: ${n.callFrame.functionName || '(anonymous)'}`;
  const area = (n: ProfileNode): string => {
    const { url, functionName } = n.callFrame;
    if (!url) return functionName.startsWith('(') ? functionName : '(native/V8)';
    if (url.startsWith('node:')) return 'node internals';
    const f = filePath(url);
    const nm = f.lastIndexOf(`node_modules${path.sep}`);
    if (nm >= 0) {
      const parts = f.slice(nm + 'node_modules/'.length).split(path.sep);
      return `pkg ${parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]}`;
    }
    const r = path.relative(root, f);
    return r.startsWith('..') ? f : `${r.split(path.sep)[0]}/`;
  };

  // Self time per node.
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const idle = [...self].filter(([id]) => byId.get(id)!.callFrame.functionName === '(idle)').reduce((s, [, t]) => s + t, 0);
  const total = [...self.values()].reduce((s, t) => s + t, 0);
  const busy = total - idle;
  const pct = (t: number) => `${((100 * t) / busy).toFixed(1)}%`;

  const byArea = new Map<string, number>();
  const charged = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, t] of self) {
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') continue;
    byArea.set(area(node), (byArea.get(area(node)) ?? 0) + t);
    // Walk up once: charge the nearest project frame, and add inclusive time to every distinct project function on the stack.
    let chargedTo: string | undefined;
    let library: string | undefined;
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const n = byId.get(cur)!;
      if (!isProject(n)) {
        if (library === undefined && area(n).startsWith('pkg ')) library = libLabel(n);
        continue;
      }
      const key = label(n);
      chargedTo ??= key;
      if (!seen.has(key)) {
        seen.add(key);
        inclusive.set(key, (inclusive.get(key) ?? 0) + t);
      }
    }
    // Work resumed after an await (a driver callback, a socket write) has no project frame on its
    // stack: charge it to the nearest package function, else to its area.
    const k = chargedTo ?? `[no project frame] ${library ?? area(node)}`;
    charged.set(k, (charged.get(k) ?? 0) + t);
  }
  const sorted = (m: Map<string, number>) => [...m].sort((x, y) => y[1] - x[1]);
  const ms = (t: number) => (t / 1000).toFixed(0);

  return [
    `busy ${ms(busy)} ms of ${ms(total)} ms profiled (idle ${ms(idle)} ms)`,
    '',
    'self time by area:',
    table(
      ['area', 'ms', 'share'],
      sorted(byArea)
        .slice(0, top)
        .map(([k, t]) => [k, ms(t), pct(t)]),
    ),
    '',
    'charged to the nearest project function on the stack (its own time plus the library/Node time it calls):',
    table(
      ['project function', 'ms', 'share'],
      sorted(charged)
        .slice(0, top)
        .map(([k, t]) => [k, ms(t), pct(t)]),
    ),
    '',
    'inclusive time of project functions (everything below them on the stack):',
    table(
      ['project function', 'ms', 'share'],
      sorted(inclusive)
        .slice(0, top)
        .map(([k, t]) => [k, ms(t), pct(t)]),
    ),
  ].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node --import tsx bench/profile-summary.ts <file.cpuprofile> [top]');
    process.exit(2);
  }
  const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
  console.log(summarizeProfile(file, root, Number(process.argv[3] ?? 15)));
}
