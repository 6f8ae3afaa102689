// A client nobody here wrote: the official TypeScript SDK's, driving `mpilens mcp` over stdio.
// Usage: node client.mjs JAVA MCP_JAR JOB_ID   (MPILENS_JOBS in the environment names the job directory)
// Prints one JSON object: the tools listed, each call's result as the SDK returned it, the resources
// listed and read, and what a subscription to the job's model brought.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const [java, jar, job] = process.argv.slice(2);
const transport = new StdioClientTransport({
  command: java,
  args: ["-jar", jar, "mcp"],
  env: { ...process.env },
  stderr: "inherit",
});
const client = new Client({ name: "mpilens-test-ts-client", version: "1.0.0" });
await client.connect(transport);

const out = { tools: [], calls: {} };
const listed = await client.listTools();
out.tools = listed.tools.map((t) => ({ name: t.name, inputSchema: t.inputSchema, outputSchema: t.outputSchema }));

// the SDK's callTool validates structuredContent against the tool's outputSchema
async function call(key, name, args) {
  try {
    out.calls[key] = await client.callTool({ name, arguments: args });
  } catch (e) {
    out.calls[key] = { thrown: String(e) };
  }
}
await call("jobs", "jobs", {});
await call("handles", "handles", { job });
await call("orphans", "handles", { job, orphansOnly: true });
await call("cominfo", "cominfo", { job });
await call("calls", "calls", { job });
await call("unknownJob", "handles", { job: "no-such-job-here" });
await call("nobodyListens", "handles", { addresses: ["127.0.0.1:9"], timeoutSeconds: 1 });
await call("afterErrors", "jobs", {});

// the job as resources, and a subscription: the first notification comes after the server's first round
const uri = `mpilens://job/${job}`;
out.resources = (await client.listResources()).resources.map((r) => r.uri);
out.templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
out.model = (await client.readResource({ uri })).contents;
out.handlesResource = (await client.readResource({ uri: `${uri}/handles` })).contents;
const updated = new Promise((resolve) => client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params)));
await client.subscribeResource({ uri });
let timer;
out.updated = await Promise.race([updated, new Promise((resolve) => { timer = setTimeout(() => resolve({ none: "in 120 s" }), 120000); })]);
clearTimeout(timer);
await client.unsubscribeResource({ uri });
await call("afterResources", "jobs", {});
await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
