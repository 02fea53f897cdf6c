// Prints pi-ai's own answers for every catalogue model as JSON: {"provider/id": {levels, clamp}}.
// Usage: node thinking_levels.mjs PATH_TO_PI_AI_PACKAGE
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const pkg = process.argv[2];
const ai = await import(pathToFileURL(join(pkg, "dist", "index.js")).href);
const { MODELS } = await import(pathToFileURL(join(pkg, "dist", "models.generated.js")).href);
const levels = ["off", "minimal", "low", "medium", "high", "xhigh", "max"];
const out = {};
for (const [provider, models] of Object.entries(MODELS)) {
  for (const model of Object.values(models)) {
    const clamp = {};
    for (const level of levels) clamp[level] = ai.clampThinkingLevel(model, level);
    out[`${provider}/${model.id}`] = { levels: ai.getSupportedThinkingLevels(model), clamp };
  }
}
process.stdout.write(JSON.stringify(out));
