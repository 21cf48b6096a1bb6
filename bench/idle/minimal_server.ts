// The reference of the idle bench: a minimal express + prom-client server, prom-client's default
// metrics on /metrics, as a team would write one in ten lines.
import express from "express";
import { collectDefaultMetrics, register } from "prom-client";

collectDefaultMetrics();
const app = express();
app.get("/metrics", async (_request, response) => {
  response.setHeader("Content-Type", register.contentType);
  response.end(await register.metrics());
});
const server = app.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (address && typeof address === "object") console.log(`listening on ${address.port}`);
});
