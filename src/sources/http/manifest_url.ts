// --manifest-url / staticPodURL: checked once for the command line and the http source alike.
// The URL may hold credentials (user:password), so no message here ever quotes it.

export class ManifestURLError extends Error {
  override readonly name = "ManifestURLError";
}

export interface ManifestURL {
  /** The URL without user:password: what is requested, and what messages show. */
  url: string;
  /** The URL's user:password, decoded: Go's http client sends them as basic auth. */
  credentials: { user: string; password: string } | undefined;
}

/** Throws ManifestURLError for anything but an http or https URL with well-formed user info. */
export function parseManifestURL(raw: string): ManifestURL {
  if (!URL.canParse(raw))
    throw new ManifestURLError(
      "the manifest URL is not a valid URL (not shown: it may hold credentials)",
    );
  const url = new URL(raw);
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new ManifestURLError(`the manifest URL must be http or https, not ${url.protocol}`);
  if (!url.username && !url.password) return { url: url.href, credentials: undefined };
  let credentials: ManifestURL["credentials"];
  try {
    credentials = {
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
    };
  } catch {
    throw new ManifestURLError(
      "the manifest URL's user:password is not valid percent-encoding (not shown)",
    );
  }
  url.username = "";
  url.password = "";
  return { url: url.href, credentials };
}
