// Drives our pi in RPC mode with pi 1.6's own RpcClient (its npm package is at PI16_PACKAGE) and prints
// one JSON line per step: {step, ok, value | error}. The Python test asserts on those lines.
import { pathToFileURL } from "node:url";
import path from "node:path";

const pkg = process.env.PI16_PACKAGE;
const { RpcClient } = await import(pathToFileURL(path.join(pkg, "dist/modes/rpc/rpc-client.js")).href);
const client = new RpcClient({
  cliPath: path.join(path.dirname(new URL(import.meta.url).pathname), "our_pi.cjs"),
  cwd: process.env.PROJECT_DIR,
  provider: "loop",
  model: "loop-model",
});

async function step(name, fn) {
  try {
    const value = await fn();
    console.log(JSON.stringify({ step: name, ok: true, value: value ?? null }));
    return value;
  } catch (error) {
    console.log(JSON.stringify({ step: name, ok: false, error: String(error?.message ?? error) }));
    return undefined;
  }
}

await client.start();
await step("getState", () => client.getState());
const events = await step("promptAndWait", () => client.promptAndWait("hello", undefined, 20000));
if (events) console.log(JSON.stringify({ step: "eventTypes", ok: true, value: events.map((e) => e.type) }));
await step("getAvailableThinkingLevels", () => client.getAvailableThinkingLevels());
await step("getMessages", () => client.getMessages());
const entries = await step("getEntries", () => client.getEntries());
if (entries) await step("getEntriesSince", () => client.getEntries(entries.entries[0].id));
await step("getTree", () => client.getTree());
await step("clearQueue", () => client.clearQueue());
await step("bash", () => client.bash("echo from-bash"));
await step("setSessionName", () => client.setSessionName("driven by pi 1.6"));
await step("getLastAssistantText", () => client.getLastAssistantText());
await step("getSessionStats", () => client.getSessionStats());
await step("promptThenWaitForIdle", async () => {
  const idle = client.waitForIdle(20000);
  const accepted = await client.prompt("again");
  await idle;
  return accepted ?? null;
});
await step("compact", () => client.compact());
await step("getCommands", () => client.getCommands());
await client.stop();
