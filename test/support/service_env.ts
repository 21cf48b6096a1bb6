// The variables the kubelet gives every container, which select the in-cluster configuration.

/** Runs `fn` with the in-cluster variables set as given (undefined: unset), then restores them. */
export async function withServiceEnv<T>(
  host: string | undefined,
  port: string | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  const saved = [process.env.KUBERNETES_SERVICE_HOST, process.env.KUBERNETES_SERVICE_PORT];
  const set = (name: string, value: string | undefined) => {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  };
  set("KUBERNETES_SERVICE_HOST", host);
  set("KUBERNETES_SERVICE_PORT", port);
  try {
    return await fn();
  } finally {
    set("KUBERNETES_SERVICE_HOST", saved[0]);
    set("KUBERNETES_SERVICE_PORT", saved[1]);
  }
}
