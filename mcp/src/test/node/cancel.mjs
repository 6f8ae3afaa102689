// The official TypeScript SDK's client cancelling a call of `mpilens mcp` (an AbortSignal: the SDK sends
// notifications/cancelled), then asking the next question.
// Usage: node cancel.mjs JAVA MCP_JAR JOB_ID RANK   (RANK: a rank the test stopped, so that reading it waits)
// Prints one JSON object: how the cancelled call ended, the next call's answer and how long it took.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [java, jar, job, rank] = process.argv.slice(2);
const transport = new StdioClientTransport({
  command: java,
  args: ["-jar", jar, "mcp"],
  env: { ...process.env },
  stderr: "inherit",
});
const client = new Client({ name: "mpilens-test-ts-cancel", version: "1.0.0" });
await client.connect(transport);

const out = {};
const controller = new AbortController();
let started = false;
const slow = client.callTool({ name: "handles", arguments: { job, ranks: rank, timeoutSeconds: 600 } }, undefined, {
  signal: controller.signal,
  timeout: 900000, // the SDK's own timeout (60 s) would cancel it too: only the abort below does
  onprogress: () => {
    // the first progress notification: the server runs the call; give it 2 s inside the read, then give up
    if (!started) setTimeout(() => controller.abort("the TypeScript client gives up"), 2000);
    started = true;
  },
});
try {
  out.slow = await slow;
} catch (e) {
  out.cancelled = String(e);
}
const t = Date.now();
out.next = await client.callTool({ name: "jobs", arguments: {} }, undefined, { timeout: 900000 });
out.nextMillis = Date.now() - t;
await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
