// --web.max-requests: at most so many scrapes at once, as promhttp's MaxRequestsInFlight does;
// one more is answered 503 at once instead of queueing behind the others.
//
// In Go every scrape runs in its own goroutine, so scrapes that arrive together are in flight
// together. Here a scrape rendered at once would be over before the next one is even read, and
// none would ever be refused while hundreds queue in the event loop: so an admitted scrape is
// rendered only after the requests already read in this turn of the loop have been counted.
import type { NextFunction, Request, Response } from "express";

export interface InFlightLimit {
  /** Scrapes being answered now. */
  readonly inFlight: number;
  middleware(request: Request, response: Response, next: NextFunction): void;
}

/** `max` 0 means no limit. */
export function limitInFlight(max: number): InFlightLimit {
  let inFlight = 0;
  return {
    get inFlight() {
      return inFlight;
    },
    middleware(_request, response, next) {
      if (max > 0 && inFlight >= max) {
        response
          .status(503)
          .type("text")
          .send(`Limit of concurrent requests reached (${max}), try again later.\n`);
        return;
      }
      inFlight++;
      // "close" fires once whether the answer was sent or the client went away first.
      response.once("close", () => {
        inFlight--;
      });
      setImmediate(next);
    },
  };
}
