// basic_auth_users and http_server_config.headers of the web config, per request, from the file
// as last loaded. As exporter-toolkit: 401 with a Basic challenge when the credentials are
// missing or wrong. Unlike it, checks cannot be starved or timed:
// - each bcrypt check runs off the event loop, in turn with other users' and, for one user, with
//   other client addresses' (bcrypt_pool.ts); a queue that is full is answered 503 at once, so a
//   flood of wrong passwords under a scraper's user name, from another address, never keeps
//   the scraper's first check from running;
// - a success is remembered per configured user (a SHA-256 digest, never a password): at most
//   one entry a user, replaced only by another success, so no flood of guesses evicts it and a
//   scraper pays for its password once;
// - an unknown user is checked against a decoy hash of the highest cost configured, so the time
//   taken does not say whether a user exists.
import { createHash, randomBytes } from "node:crypto";
import type { NextFunction, Request, Response } from "express";
import type { Logger } from "../core/deps.js";
import { AuthBusyError, BcryptPool } from "./bcrypt_pool.js";
import { bcryptCost } from "./web_config.js";
import type { WebConfigFile } from "./web_config_file.js";

/** Go's bcrypt.DefaultCost, for a decoy when no user is configured. */
const DefaultCost = 10;
const bcryptAlphabet = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A hash no password matches, of the highest cost among `users`: as slow as the slowest. */
export function decoyHash(users: ReadonlyMap<string, string>): string {
  let cost = 0;
  for (const hash of users.values()) cost = Math.max(cost, bcryptCost(hash));
  const random = [...randomBytes(53)].map((byte) => bcryptAlphabet[byte % 64]).join("");
  return `$2y$${String(cost || DefaultCost).padStart(2, "0")}$${random}`;
}

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
  private readonly pool = new BcryptPool();
  /** User -> digest of the hash and password last let in. */
  private readonly admitted = new Map<string, string>();
  private readonly decoys = new WeakMap<ReadonlyMap<string, string>, string>();

  /**
   * Whether the user with that password is let in under `users`; AuthBusyError when full.
   * `client`: the remote address, whose checks wait in a queue of their own.
   */
  async check(
    users: ReadonlyMap<string, string>,
    user: string,
    password: string,
    client: string,
  ): Promise<boolean> {
    const known = users.get(user);
    if (known === undefined) {
      await this.pool.compare("unknown users", client, password, this.decoy(users));
      return false;
    }
    const digest = createHash("sha256")
      .update(JSON.stringify([user, known, password]))
      .digest("hex");
    if (this.admitted.get(user) === digest) return true;
    const ok = await this.pool.compare(`user ${user}`, client, password, known);
    if (ok) this.admit(users, user, digest);
    return ok;
  }

  close(): Promise<void> {
    return this.pool.close();
  }

  private admit(users: ReadonlyMap<string, string>, user: string, digest: string): void {
    this.admitted.set(user, digest);
    // Users removed by a reload go: the map never holds more than the users configured.
    if (this.admitted.size > users.size)
      for (const name of this.admitted.keys()) if (!users.has(name)) this.admitted.delete(name);
  }

  private decoy(users: ReadonlyMap<string, string>): string {
    let decoy = this.decoys.get(users);
    if (decoy === undefined) {
      decoy = decoyHash(users);
      this.decoys.set(users, decoy);
    }
    return decoy;
  }
}

/** Express middleware: the web config's headers on every answer, then basic auth if configured. */
export function webConfigMiddleware(
  webConfig: WebConfigFile,
  logger: Logger,
  auth: BasicAuth = new BasicAuth(),
) {
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
    let ok = false;
    try {
      ok =
        credentials !== undefined &&
        (await auth.check(
          config.basicAuthUsers,
          ...credentials,
          request.socket.remoteAddress ?? "",
        ));
    } catch (error) {
      if (!(error instanceof AuthBusyError)) throw error;
      response.setHeader("Retry-After", "1");
      response
        .status(503)
        .type("text")
        .send(`Too many password checks waiting: ${error.message}\n`);
      return;
    }
    if (ok) return next();
    if (credentials)
      logger.debug("Basic auth refused", { user: credentials[0], path: request.path });
    response.setHeader("WWW-Authenticate", "Basic");
    response.status(401).type("text").send("Unauthorized\n");
  };
}
