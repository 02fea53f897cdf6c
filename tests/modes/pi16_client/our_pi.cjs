// Stands in for pi's dist/cli.js when pi 1.6's RpcClient spawns "node <cliPath> --mode rpc ...":
// runs our pi (the command in OUR_PI_CMD, a JSON array) with the same arguments and stdio.
const { spawn } = require("node:child_process");
const cmd = JSON.parse(process.env.OUR_PI_CMD);
const child = spawn(cmd[0], [...cmd.slice(1), ...process.argv.slice(2)], { stdio: "inherit" });
child.on("exit", (code, signal) => process.exit(signal ? 1 : code ?? 1));
for (const sig of ["SIGTERM", "SIGINT"]) process.on(sig, () => child.kill(sig));
