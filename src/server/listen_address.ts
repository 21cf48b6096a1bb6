// --web.listen-address in Go's net.Listen syntax: ":9847" (every interface), "host:port",
// "[::1]:9847". Port 0 asks the system for a free port.

export interface ListenAddress {
  /** Undefined: every interface. */
  host: string | undefined;
  port: number;
}

/** Throws an Error whose message fits after the flag name. */
export function parseListenAddress(raw: string): ListenAddress {
  const colon = raw.lastIndexOf(":");
  if (colon < 0) throw new Error(`${JSON.stringify(raw)}: missing port in address`);
  let host = raw.slice(0, colon);
  const portText = raw.slice(colon + 1);
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  else if (host.includes(":"))
    throw new Error(
      `${JSON.stringify(raw)}: too many colons in address (write IPv6 as [addr]:port)`,
    );
  if (!/^[0-9]{1,5}$/.test(portText) || Number(portText) > 65535)
    throw new Error(`${JSON.stringify(raw)}: invalid port ${JSON.stringify(portText)}`);
  return { host: host === "" ? undefined : host, port: Number(portText) };
}

/** The address as a URL host part, for links and messages. */
export function formatHostPort(host: string, port: number): string {
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}
