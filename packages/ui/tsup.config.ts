import { copyFileSync } from "node:fs";
import { defineConfig } from "tsup";

// The page as three static files the server ships: dist/index.html, dist/app.js (one minified
// script, Preact and htm bundled in) and dist/app.css. No CDN, nothing inline (the CSP forbids it).
export default defineConfig({
  entry: { app: "src/main.ts" },
  format: ["iife"],
  platform: "browser",
  target: "es2020",
  outDir: "dist",
  outExtension: () => ({ js: ".js" }),
  minify: true,
  clean: true,
  sourcemap: false,
  dts: false,
  async onSuccess() {
    copyFileSync("src/index.html", "dist/index.html");
  },
});
