// Usage: node client.mjs LATHE DIR
//
// An editor made with the official TypeScript ACP SDK: it starts
// `LATHE acp`, opens a session in DIR, sends one prompt, allows what it is
// asked, and prints on stdout, as JSON, what it saw: the agent's answer to
// initialize, the session's modes, the updates in order (one line each) and
// the stop reason. NODE_PATH names the node_modules that holds the SDK.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import path from "node:path";

const [lathe, dir] = process.argv.slice(2);
const sdkPath = path.join(process.env.NODE_PATH, "@agentclientprotocol/sdk/dist/v1/stable/acp.js");
const acp = await import(pathToFileURL(sdkPath).href);

const child = spawn(lathe, ["acp"], { stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
const updates = [];
const app = acp.client({ name: "lathe-e2e" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    const u = params.update;
    switch (u.sessionUpdate) {
      case "agent_message_chunk":
      case "agent_thought_chunk": {
        const last = updates[updates.length - 1];
        if (last && last.startsWith(u.sessionUpdate + " ")) {
          updates[updates.length - 1] = last + u.content.text;
        } else {
          updates.push(u.sessionUpdate + " " + u.content.text);
        }
        break;
      }
      case "tool_call":
        updates.push(`tool_call ${u.kind} ${u.status} ${u.title}`);
        break;
      case "tool_call_update":
        updates.push(`tool_call_update ${u.status}`);
        break;
      default:
        updates.push(u.sessionUpdate);
    }
  })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    updates.push("request_permission " + params.options.map((o) => o.optionId).join(","));
    return { outcome: { outcome: "selected", optionId: "allow" } };
  });

const out = await app.connectWith(stream, async (ctx) => {
  const init = await ctx.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } },
  });
  const session = await ctx.request(acp.methods.agent.session.new, { cwd: dir, mcpServers: [] });
  const res = await ctx.request(acp.methods.agent.session.prompt, {
    sessionId: session.sessionId,
    prompt: [{ type: "text", text: "write hello.txt" }],
  });
  return { init, modes: session.modes, stopReason: res.stopReason };
});
child.stdin.end();
const code = await new Promise((resolve) => child.on("exit", resolve));
console.log(JSON.stringify({ ...out, updates: updates.filter((u) => u !== "available_commands_update"), exit: code }));
