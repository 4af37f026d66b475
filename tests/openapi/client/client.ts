// A typed client of the agent, generated from its own GET /openapi.json by openapi-typescript
// (./schema.js) with openapi-fetch, compiled with tsc --strict and run against the agent by
// tests/openapi/client.js. No cast anywhere: if the document lacked a type, this would not
// compile.
//   node client.js <base-url>
import createClient from "openapi-fetch";

import type { paths } from "./schema.js";

// JSON answers only: GET /v1/runs/{id} also offers text/plain (?format=text).
const client = createClient<paths, `${string}/json`>({ baseUrl: process.argv[2] ?? "" });

// A run as the client reads it (openapi-fetch's Readable<components["schemas"]["Run"]>: it
// leaves out members typed only null, such as a cpu result's "ecs").
type Run = Awaited<ReturnType<typeof readRun>>;
type CipherRun = Extract<Run, { probe: "cipher" }>;
type CipherResult = NonNullable<CipherRun["result"]>;

function finished(run: Run): boolean {
  return run.state === "succeeded" || run.state === "failed" || run.state === "cancelled";
}

async function startCipherRun() {
  const { data, error, response } = await client.POST("/v1/runs", {
    body: {
      probe: "cipher",
      params: { ciphers: ["aes-128-ctr"], block_sizes: [1024], seconds: 0.2 },
    },
  });
  if (data === undefined) {
    throw new Error(`POST /v1/runs answered ${response.status}: ${error.error}`);
  }
  return data;
}

async function readRun(id: string) {
  const { data, error, response } = await client.GET("/v1/runs/{id}", {
    params: { path: { id } },
  });
  if (data === undefined) {
    throw new Error(`GET /v1/runs/${id} answered ${response.status}: ${error.error}`);
  }
  return data;
}

// Polls until the run has finished: the agent answers at once, the run takes ~0.2 s.
async function waitUntilFinished(run: Run): Promise<Run> {
  let current = run;
  for (let attempt = 0; !finished(current); ++attempt) {
    if (attempt === 300) throw new Error(`run ${run.id} did not finish in 30 s`);
    await new Promise((done) => setTimeout(done, 100));
    current = await readRun(run.id);
  }
  return current;
}

function cipherResult(run: CipherRun): CipherResult {
  if (run.state !== "succeeded" || run.result === null) {
    throw new Error(`run ${run.id} ended ${run.state}: ${run.error ?? "no result"}`);
  }
  return run.result;
}

// GET /v1/task: the ECS task's containers, or 404 outside ECS (where this client runs).
async function taskSummary(): Promise<string> {
  const { data, error, response } = await client.GET("/v1/task", {});
  if (data === undefined) return `no ECS task (${response.status}: ${error.error})`;
  const cores: number | null = data.cpu_cores_used;
  const saturation: number | null = data.cpu_saturation.ratio;
  const names: string[] = data.containers.map((container) => container.name);
  return `${names.join(", ")}: ${cores ?? "no rate"} cores, saturated ${saturation ?? "-"}`;
}

async function main(): Promise<void> {
  console.log(await taskSummary());
  const run = await waitUntilFinished(await startCipherRun());
  if (run.probe !== "cipher") throw new Error(`run ${run.id} is of ${run.probe}, not cipher`);
  const result = cipherResult(run);
  const measurement = result.measurements[0];
  if (measurement === undefined) throw new Error("the cipher run measured nothing");
  const rate: number = measurement.bytes_per_second;
  const seconds: number = run.params.seconds;  // the answer's params: defaults filled in
  const budget: number = result.cpu_budget.cores;
  if (!(rate > 0)) throw new Error(`bytes_per_second is ${rate}`);
  console.log(
    `${measurement.cipher} ${measurement.block_bytes} B: ${(rate / 1e6).toFixed(1)} MB/s ` +
      `(${seconds} s per measurement, CPU budget ${budget} cores)`,
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
