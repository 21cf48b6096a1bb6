// The --web.config.file as the server uses it: read again whenever it or a certificate, key or
// CA file it names has changed, checked on every connection and request (a few stat calls), so
// rotated certificates and changed users apply without a restart, as exporter-toolkit's
// per-handshake reading does. A file that turns invalid fails closed (no handshake, 500) and is
// logged once per change, as in exporter-toolkit; fixing it restores service.
import { readFileSync, statSync } from "node:fs";
import { createSecureContext, type SecureContextOptions } from "node:tls";
import type { Logger } from "../core/deps.js";
import { type Pem, parseWebConfig, type WebConfig, WebConfigError } from "./web_config.js";

export interface LoadedWebConfig {
  config: WebConfig;
  /** The TLS context's options from the certificate files as they are now (checked). */
  tlsOptions: SecureContextOptions | undefined;
  /** Counts the loads: a new value means new options. */
  generation: number;
}

/** A regular file's contents; a FIFO or device would block the read. */
function readRegularFile(path: string): string {
  if (!statSync(path).isFile()) throw new WebConfigError(`${path} is not a regular file`);
  return readFileSync(path, "utf8");
}

function pemText(pem: Pem): string {
  return "inline" in pem ? pem.inline : readRegularFile(pem.file);
}

/** Identifies a file's current version without reading it. */
function fingerprint(path: string): string {
  try {
    const s = statSync(path);
    return `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
  } catch {
    return "missing";
  }
}

function referencedFiles(config: WebConfig): string[] {
  const tls = config.tls;
  if (!tls) return [];
  return [tls.cert, tls.key, tls.clientCA].flatMap((pem) =>
    pem && "file" in pem ? [pem.file] : [],
  );
}

/** The options, tried once here: a key that does not match its certificate is caught now. */
function tlsOptions(config: WebConfig): SecureContextOptions | undefined {
  const tls = config.tls;
  if (!tls) return undefined;
  try {
    const options: SecureContextOptions = {
      cert: pemText(tls.cert),
      key: pemText(tls.key),
      ca: tls.clientCA ? pemText(tls.clientCA) : undefined,
      minVersion: tls.minVersion,
      maxVersion: tls.maxVersion,
      ciphers: tls.ciphers,
      ecdhCurve: tls.curves,
      honorCipherOrder: tls.preferServerCipherSuites,
    };
    createSecureContext(options);
    return options;
  } catch (err) {
    if (err instanceof WebConfigError) throw err;
    throw new WebConfigError(
      `tls_server_config: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/** Reads and checks the file itself. Throws WebConfigError. */
function readWebConfig(path: string): WebConfig {
  let text: string;
  try {
    text = readRegularFile(path);
  } catch (err) {
    if (err instanceof WebConfigError) throw err;
    throw new WebConfigError(`cannot read: ${err instanceof Error ? err.message : String(err)}`);
  }
  return parseWebConfig(text, path);
}

export class WebConfigFile {
  private loaded: LoadedWebConfig | WebConfigError;
  /** The files the last decodable config names: a change to one of them is a reload. */
  private named: string[] = [];
  private version = "";
  private generation = 0;

  /** Throws WebConfigError when the file is unusable at start. */
  constructor(
    readonly path: string,
    private readonly logger: Logger,
  ) {
    this.loaded = this.load();
    if (this.loaded instanceof WebConfigError) throw this.loaded;
    this.version = this.currentVersion();
  }

  /** Whether the server speaks TLS: decided at start, as in exporter-toolkit. */
  get tls(): boolean {
    return !(this.loaded instanceof WebConfigError) && this.loaded.config.tls !== undefined;
  }

  /** The configuration as the files are now, or why they are unusable. */
  current(): LoadedWebConfig | WebConfigError {
    const version = this.currentVersion();
    if (version === this.version) return this.loaded;
    this.version = version;
    this.loaded = this.load();
    if (this.loaded instanceof WebConfigError)
      this.logger.error("Web config is invalid; refusing connections until it is fixed", {
        file: this.path,
        error: this.loaded.message,
      });
    else this.logger.info("Web config reloaded", { file: this.path });
    return this.loaded;
  }

  private load(): LoadedWebConfig | WebConfigError {
    try {
      const config = readWebConfig(this.path);
      this.named = referencedFiles(config);
      return { config, tlsOptions: tlsOptions(config), generation: ++this.generation };
    } catch (err) {
      return err instanceof WebConfigError ? err : new WebConfigError(String(err));
    }
  }

  /** The version of the config file and of every file it names. */
  private currentVersion(): string {
    return [this.path, ...this.named].map(fingerprint).join("|");
  }
}
