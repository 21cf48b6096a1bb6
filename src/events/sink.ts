// Where the recorder writes: the events.k8s.io/v1 API of the API server, with the api source's
// client and credentials (tools/events' EventSinkImpl). Every request is bounded in time and
// in the size of its answer.

import { callApi } from "../sources/api/call.js";
import type { ApiClient } from "../sources/api/client.js";
import { ApiSourceError } from "../sources/api/error.js";
import { errorMessage } from "../sources/error_message.js";
import { isObject } from "../sources/json_object.js";
import type { EventsV1Event } from "./event.js";

/** A failed write: an answer of the API server (a StatusError) or none (a transport error). */
export class SinkError extends Error {
  constructor(
    message: string,
    /** The HTTP status of the answer; undefined when there was none. */
    readonly status?: number,
    /** The answer's Retry-After, in seconds, when it had one. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = "SinkError";
  }

  /** util.IsKeyNotFoundError: a 404 answer. */
  get notFound(): boolean {
    return this.status === 404;
  }

  /** errors.IsAlreadyExists: a 409 answer (an Event's name is taken). */
  get alreadyExists(): boolean {
    return this.status === 409;
  }
}

/** `signal` ends a write in flight (the exporter stops). */
export interface EventSink {
  create(event: EventsV1Event, signal: AbortSignal): Promise<EventsV1Event>;
  /** A strategic merge patch of the named Event. */
  patch(event: EventsV1Event, patch: string, signal: AbortSignal): Promise<EventsV1Event>;
}

/** One write may take this long, head and body. */
const WriteTimeoutMs = 30_000;
/** An Event is at most a few KiB; an answer (the Event, or a Status) far less than this. */
const MaxAnswerBytes = 256 * 1024;

export class ApiEventSink implements EventSink {
  constructor(private readonly client: ApiClient) {}

  create(event: EventsV1Event, signal: AbortSignal): Promise<EventsV1Event> {
    const path = `/apis/events.k8s.io/v1/namespaces/${encodeURIComponent(event.metadata.namespace)}/events`;
    return this.send(path, signal, "POST", "application/json", JSON.stringify(event));
  }

  patch(event: EventsV1Event, patch: string, signal: AbortSignal): Promise<EventsV1Event> {
    const { namespace, name } = event.metadata;
    const path = `/apis/events.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/events/${encodeURIComponent(name)}`;
    return this.send(path, signal, "PATCH", "application/strategic-merge-patch+json", patch);
  }

  private async send(
    path: string,
    signal: AbortSignal,
    method: "POST" | "PATCH",
    contentType: string,
    body: string,
  ): Promise<EventsV1Event> {
    let answer: Awaited<ReturnType<typeof callApi>>;
    try {
      answer = await callApi(this.client, path, {
        signal,
        timeoutMs: WriteTimeoutMs,
        maxBytes: MaxAnswerBytes,
        what: `event ${method === "POST" ? "create" : "patch"}`,
        write: { method, contentType, body },
      });
    } catch (err) {
      throw new SinkError(err instanceof ApiSourceError ? err.message : errorMessage(err));
    }
    const decoded = parseJSON(answer.body);
    if (answer.status >= 200 && answer.status < 300) {
      if (!isObject(decoded) || !isObject(decoded.metadata))
        throw new SinkError("the API server's answer is not an Event");
      return decoded as unknown as EventsV1Event;
    }
    throw new SinkError(
      statusMessage(decoded) ?? `HTTP ${answer.status}`,
      answer.status,
      retryAfter(decoded),
    );
  }
}

function parseJSON(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A Status answer's message, with its reason and code. */
function statusMessage(decoded: unknown): string | undefined {
  if (!isObject(decoded) || decoded.kind !== "Status") return undefined;
  const message = typeof decoded.message === "string" ? decoded.message : "";
  const reason = typeof decoded.reason === "string" ? decoded.reason : "";
  return `${decoded.code ?? ""} ${reason}: ${message}`.trim();
}

/** A Status's details.retryAfterSeconds, which the API server sets with a 429. */
function retryAfter(decoded: unknown): number | undefined {
  if (!isObject(decoded) || !isObject(decoded.details)) return undefined;
  const seconds = decoded.details.retryAfterSeconds;
  return typeof seconds === "number" && seconds > 0 ? seconds : undefined;
}
