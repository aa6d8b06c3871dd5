/**
 * What the generator and its handler check say to each other, over IPC (a check process of its
 * own) or over the resident checker's socket: in a module of its own, so that the check process
 * (child.ts) and the resident checker (resident.ts) do not import each other.
 */
import type { Problem } from './program.ts';
import type { CheckScope } from './roots.ts';
import type { FileStamp } from './stamp.ts';

export interface ChildConfig {
  root: string;
  yamlFiles: string[];
  buildInfoFile: string;
}

export interface ChildRequest {
  id: number;
  kind: 'warm' | 'check';
  /** The folders to check; without it, read from the tools.yaml files' `codegen:` sections. */
  scope?: CheckScope;
  color?: boolean;
}

export interface ChildCheck {
  problems: Problem[];
  files: number;
  scope: CheckScope;
  /** The tools.yaml files as they were: while they are, `scope` holds. */
  yaml: Record<string, FileStamp>;
  roots: string[];
  inputs: Record<string, FileStamp>;
  ms: number;
}

export type ChildResponse = { id: number; result?: ChildCheck; skipped?: string; error?: string };
