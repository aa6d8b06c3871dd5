/** Which version bump may carry a breaking change (semantic versioning; 0.x: a minor bump). */

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

function parseVersion(version: string): { major: number; minor: number } {
  const m = SEMVER.exec(version);
  if (!m) throw new Error(`"${version}" is not a semantic version (MAJOR.MINOR.PATCH, e.g. 1.4.2)`);
  return { major: Number(m[1]), minor: Number(m[2]) };
}

/** True when `next` is a version bump allowed to break `published`: a semver major bump (for 0.x: a minor or major bump). */
export function acceptsBreakingChanges(publishedVersion: string, nextVersion: string): boolean {
  const published = parseVersion(publishedVersion);
  const next = parseVersion(nextVersion);
  if (published.major === 0) return next.major > 0 || next.minor > published.minor;
  return next.major > published.major;
}

/** The smallest version that would accept a break from `version` ("1.4.2" -> "2.0.0", "0.1.0" -> "0.2.0"). */
export function nextBreakingVersion(version: string): string {
  const { major, minor } = parseVersion(version);
  return major === 0 ? `0.${minor + 1}.0` : `${major + 1}.0.0`;
}
