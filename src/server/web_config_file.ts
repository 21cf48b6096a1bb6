// The --web.config.file as the server uses it: read again whenever it or a certificate, key or
// CA file it names has changed, so rotated certificates and changed users apply without a
// restart, as exporter-toolkit's per-handshake reading does. The files are looked at every
// second, outside request handling: a request or a handshake only takes the configuration last
// loaded, and no read (a FIFO, a hung mount) or parse can hold one up. A file that turns
// invalid fails closed (no handshake, 500) and is logged once per change, as in
// exporter-toolkit; fixing it restores service.
import { stat } from "node:fs/promises";
import { createSecureContext, type SecureContextOptions } from "node:tls";
import type { Logger } from "../core/deps.js";
import { errorMessage } from "../sources/error_message.js";
import { readConfigText } from "../sources/file/config_file.js";
import { type Pem, parseWebConfig, type WebConfig, WebConfigError } from "./web_config.js";

/** How often the files are looked at for a change. */
export const WebConfigCheckPeriodMs = 1000;
/** A web config is a few KiB; 1,000 users (the user bound) about 100 KiB. */
const MaxWebConfigBytes = 1024 * 1024;

export interface LoadedWebConfig {
  config: WebConfig;
  /** The TLS context's options from the certificate files as they are now (checked). */
  tlsOptions: SecureContextOptions | undefined;
  /** Counts the loads: a new value means new options. */
  generation: number;
}

/** A regular file's contents, read without blocking and within a deadline. */
async function readRegularFile(path: string, limit?: number): Promise<string> {
  try {
    return await readConfigText(path, limit);
  } catch (err) {
    throw new WebConfigError(`cannot read ${path}: ${errorMessage(err)}`);
  }
}

function pemText(pem: Pem): Promise<string> {
  return "inline" in pem ? Promise.resolve(pem.inline) : readRegularFile(pem.file);
}

/** Identifies a file's current version without reading it. */
async function fingerprint(path: string): Promise<string> {
  try {
    const s = await stat(path);
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
async function tlsOptions(config: WebConfig): Promise<SecureContextOptions | undefined> {
  const tls = config.tls;
  if (!tls) return undefined;
  try {
    const options: SecureContextOptions = {
      cert: await pemText(tls.cert),
      key: await pemText(tls.key),
      ca: tls.clientCA ? await pemText(tls.clientCA) : undefined,
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
async function readWebConfig(path: string): Promise<WebConfig> {
  return parseWebConfig(await readRegularFile(path, MaxWebConfigBytes), path);
}

export class WebConfigFile {
  private loaded: LoadedWebConfig | WebConfigError;
  /** The files the last decodable config names: a change to one of them is a reload. */
  private named: string[] = [];
  private version = "";
  private generation = 0;
  private checking = false;
  private timer: NodeJS.Timeout | undefined;

  /** Loads the file and looks at it every second from then on; throws WebConfigError. */
  static async open(path: string, logger: Logger): Promise<WebConfigFile> {
    const file = new WebConfigFile(path, logger);
    // The version first: a change made while loading is seen by the next check.
    file.version = await file.currentVersion();
    const loaded = await file.load();
    if (loaded instanceof WebConfigError) throw loaded;
    file.loaded = loaded;
    // The files it names are known now.
    file.version = await file.currentVersion();
    file.timer = setInterval(() => void file.check(), WebConfigCheckPeriodMs).unref();
    return file;
  }

  private constructor(
    readonly path: string,
    private readonly logger: Logger,
  ) {
    this.loaded = new WebConfigError("not loaded yet");
  }

  /** Whether the server speaks TLS: decided at start, as in exporter-toolkit. */
  get tls(): boolean {
    return !(this.loaded instanceof WebConfigError) && this.loaded.config.tls !== undefined;
  }

  /** The configuration as last loaded, or why the files are unusable. Never reads a file. */
  current(): LoadedWebConfig | WebConfigError {
    return this.loaded;
  }

  /** Stops looking at the files. */
  close(): void {
    clearInterval(this.timer);
  }

  /** Reloads when a file changed; one check at a time. */
  async check(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      const version = await this.currentVersion();
      if (version === this.version) return;
      this.version = version;
      this.loaded = await this.load();
      if (this.loaded instanceof WebConfigError)
        this.logger.error("Web config is invalid; refusing connections until it is fixed", {
          file: this.path,
          error: this.loaded.message,
        });
      else this.logger.info("Web config reloaded", { file: this.path });
    } finally {
      this.checking = false;
    }
  }

  private async load(): Promise<LoadedWebConfig | WebConfigError> {
    try {
      const config = await readWebConfig(this.path);
      this.named = referencedFiles(config);
      return { config, tlsOptions: await tlsOptions(config), generation: ++this.generation };
    } catch (err) {
      return err instanceof WebConfigError ? err : new WebConfigError(String(err));
    }
  }

  /** The version of the config file and of every file it names. */
  private async currentVersion(): Promise<string> {
    return (await Promise.all([this.path, ...this.named].map(fingerprint))).join("|");
  }
}
