import { insideGitWorkTree, runGit } from "../git.js";
import type { Env } from "../process-host.js";

/**
 * The repository a remote URL names, as the report records it: `owner/name` for github.com
 * (https, ssh and scp-like forms), `host/path` for other hosts, the path itself for a local
 * remote; `.git` and trailing slashes dropped, and credentials never kept (a token in an
 * https URL must not reach a report). Null for an empty URL.
 */
export function repositoryFromRemote(url: string): string | null {
  const text = url.trim();
  if (text === "") return null;
  const trim = (p: string) =>
    p
      .replace(/\/+$/, "")
      .replace(/\.git$/, "")
      .replace(/^\/+/, "");
  const withHost = (host: string, p: string) => {
    const name = host.toLowerCase().replace(/^www\./, "");
    return name === "github.com" ? trim(p) : `${name}/${trim(p)}`;
  };
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(text);
  if (scheme) {
    if (/^file:/i.test(text)) return trim(text.slice("file://".length)) === "" ? null : `/${trim(text.slice("file://".length))}`;
    try {
      const u = new URL(text);
      return u.hostname === "" ? null : withHost(u.hostname, decodeURIComponent(u.pathname));
    } catch {
      return null;
    }
  }
  // scp-like: [user@]host:path (a colon before any slash; not a Windows drive letter)
  const scp = /^(?:[^@/]+@)?([^:/]+):(?!\/\/)(.+)$/.exec(text);
  if (scp && scp[1]!.length > 1) return withHost(scp[1]!, scp[2]!);
  const local = text.replace(/\/+$/, "").replace(/\.git$/, "");
  return local === "" ? null : local;
}

/** The `origin` remote of the work tree at root as a repository name, or null (no git, no origin). */
export async function originRepository(root: string, env: Env): Promise<string | null> {
  if (!insideGitWorkTree(root, env)) return null;
  const url = await runGit(root, ["config", "--get", "remote.origin.url"], 5000);
  return url === null ? null : repositoryFromRemote(url);
}
