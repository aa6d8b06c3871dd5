/**
 * The validator of tools.yaml's own shape (tools-yaml.schema.json), with every error and the
 * schema beside each (`verbose`: the did-you-mean for an unknown key reads the known ones there).
 * Run as TypeScript, the generator compiles it here; its bundle (scripts/gen-bundle.mjs) replaces
 * this module with the same validator compiled ahead of time by ajv's standalone mode, with the
 * options below, so a run compiles neither this schema nor ajv's meta-schema (about a sixth of a
 * second). tests/unit/codegen/tools-yaml-validator.test.ts checks that both report the same errors.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import fileSchema from '../tools-yaml.schema.json' with { type: 'json' };

/** Also read by scripts/gen-bundle.mjs (keep them JSON). */
export const TOOLS_YAML_AJV_OPTIONS = { allErrors: true, strict: false, verbose: true };

export const validateToolsYamlFile: ValidateFunction = new Ajv2020(TOOLS_YAML_AJV_OPTIONS).compile(fileSchema);
