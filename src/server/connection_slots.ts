// The connection cap, closed fairly. Node's own cap (server.maxConnections) refuses the newest
// connection once full: 1,000 slowloris sockets that reconnect whenever closed then hold every
// slot, each for the whole headers timeout, and no scraper is ever answered (0 answered under
// bench:hostile). Here a new connection at the cap takes the slot of the connection that has
// waited longest without a request being answered on it (still sending its headers, or idle
// between keep-alive requests): a slow client loses its slot to the next arrival, while a
// connection whose request is being answered is never closed for another. A scraper sends its
// request as it connects, so it is answered unless a full cap of connections arrives before its
// headers do; only when every slot is answering a request is a new connection refused.
import type { Socket } from "node:net";

/** A live connection's key: a TLS socket and the raw socket beneath it share it. */
const key = (socket: Socket): string => `${socket.remoteAddress}|${socket.remotePort}`;

export class ConnectionSlots {
  /** Connections with no request being answered, the longest waiting first. */
  private readonly waiting = new Map<string, Socket>();
  /** Connections with a request being answered, and how many requests each has in flight. */
  private readonly answering = new Map<string, { socket: Socket; requests: number }>();
  private closedForOthers = 0;

  constructor(readonly cap: number) {}

  /** Connections held now. */
  get size(): number {
    return this.waiting.size + this.answering.size;
  }

  /** Connections closed so far to make room for a new one. */
  get evicted(): number {
    return this.closedForOthers;
  }

  /**
   * A new connection (the raw socket). At the cap, the longest-waiting connection without a
   * request being answered is closed to make room; false when there is none: refuse this one.
   */
  admit(socket: Socket): boolean {
    // Closed before it was seen: nothing to hold.
    if (socket.remoteAddress === undefined) return false;
    if (this.size >= this.cap) {
      const [oldestKey, oldest] = this.waiting.entries().next().value ?? [];
      if (oldestKey === undefined || oldest === undefined) return false;
      this.waiting.delete(oldestKey);
      oldest.destroy();
      this.closedForOthers++;
    }
    const id = key(socket);
    this.waiting.set(id, socket);
    socket.once("close", () => {
      if (this.waiting.get(id) === socket) this.waiting.delete(id);
      if (this.answering.get(id)?.socket === socket) this.answering.delete(id);
    });
    return true;
  }

  /** A request has arrived on `socket` (its headers are complete): it is not closed for others. */
  requestStarted(socket: Socket): void {
    const id = key(socket);
    const held = this.answering.get(id);
    if (held) {
      held.requests++;
      return;
    }
    const raw = this.waiting.get(id);
    if (raw === undefined) return;
    this.waiting.delete(id);
    this.answering.set(id, { socket: raw, requests: 1 });
  }

  /** Its answer is finished (or abandoned): the connection waits again, as the newest. */
  requestDone(socket: Socket): void {
    const id = key(socket);
    const held = this.answering.get(id);
    if (!held || --held.requests > 0) return;
    this.answering.delete(id);
    if (!held.socket.destroyed) this.waiting.set(id, held.socket);
  }
}
