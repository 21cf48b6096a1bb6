// basic_auth_users and http_server_config.headers of the web config, per request, from the file
// as it is now. As exporter-toolkit: 401 with a Basic challenge when the credentials are missing
// or wrong; an unknown user is checked against a fixed hash so timing does not tell users apart;
// one bcrypt comparison at a time (they are CPU-heavy), and outcomes cached so a scraper pays
// for its password once. The cache holds SHA-256 digests, never a password.
import { createHash } from "node:crypto";
import bcrypt from "bcryptjs";
import type { NextFunction, Request, Response } from "express";
import type { Logger } from "../core/deps.js";
import type { WebConfigFile } from "./web_config_file.js";

// bcrypt of "fakepassword" at cost 10, the hash exporter-toolkit compares unknown users against.
const decoyHash = "$2y$10$QOauhQNbBCuQDKes6eFzPeMqBSjb7Mr5DUmpZ/VcEd00UAV/LDeSi";
const CacheSize = 100;

/** user:password from an Authorization: Basic header, or undefined. */
export function basicCredentials(header: string | undefined): [string, string] | undefined {
  const match = /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(header ?? "");
  if (!match) return undefined;
  const decoded = Buffer.from(match[1] as string, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  return [decoded.slice(0, colon), decoded.slice(colon + 1)];
}

export class BasicAuth {
  private readonly outcomes = new Map<string, boolean>();
  private queue: Promise<unknown> = Promise.resolve();

  /** Whether the user with that password is let in under `users`. */
  async check(
    users: ReadonlyMap<string, string>,
    user: string,
    password: string,
  ): Promise<boolean> {
    const known = users.get(user);
    const hash = known ?? decoyHash;
    const key = createHash("sha256")
      .update(JSON.stringify([user, hash, password]))
      .digest("hex");
    let ok = this.outcomes.get(key);
    if (ok === undefined) {
      const compared = this.queue.then(() => bcrypt.compare(password, hash));
      this.queue = compared.catch(() => undefined);
      ok = await compared;
      if (this.outcomes.size >= CacheSize) this.outcomes.clear();
      this.outcomes.set(key, ok);
    }
    return ok && known !== undefined;
  }
}

/** Express middleware: the web config's headers on every answer, then basic auth if configured. */
export function webConfigMiddleware(webConfig: WebConfigFile, logger: Logger) {
  const auth = new BasicAuth();
  return async (request: Request, response: Response, next: NextFunction): Promise<void> => {
    const loaded = webConfig.current();
    if (loaded instanceof Error) {
      response.status(500).type("text").send("Internal Server Error\n");
      return;
    }
    const { config } = loaded;
    for (const [name, value] of Object.entries(config.headers)) response.setHeader(name, value);
    if (config.basicAuthUsers.size === 0) return next();
    const credentials = basicCredentials(request.headers.authorization);
    if (credentials && (await auth.check(config.basicAuthUsers, ...credentials))) return next();
    if (credentials)
      logger.debug("Basic auth refused", { user: credentials[0], path: request.path });
    response.setHeader("WWW-Authenticate", "Basic");
    response.status(401).type("text").send("Unauthorized\n");
  };
}
