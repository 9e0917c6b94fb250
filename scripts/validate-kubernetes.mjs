// Validates Kubernetes manifests against the schemas of the npm package kubernetes-models (generated from
// Kubernetes' OpenAPI document): node validate-kubernetes.mjs MODELS_FOLDER FILE.yaml...
// Prints "ok FILE KIND NAME" per document; exits 1 at the first document that does not validate.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [folder, ...files] = process.argv.slice(2);
const modules = join(folder, "node_modules");
const { parseAllDocuments } = await import(pathToFileURL(join(modules, "yaml", "dist", "index.js")).href);

for (const file of files) {
  for (const document of parseAllDocuments(readFileSync(file, "utf8"))) {
    if (document.errors.length) throw new Error(`${file}: ${document.errors[0].message}`);
    const manifest = document.toJS();
    if (manifest == null) continue;
    const { apiVersion, kind } = manifest;
    if (!apiVersion || !kind) throw new Error(`${file}: a document without apiVersion and kind`);
    const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
    const path = join(modules, "kubernetes-models", ...(group ? [group] : []), version, `${kind}.js`);
    let model;
    try {
      model = await import(pathToFileURL(path).href);
    } catch (e) {
      throw new Error(`${file}: no schema for ${apiVersion} ${kind}`);
    }
    try {
      new model[kind](manifest).validate();
    } catch (e) {
      console.error(`${file}: ${kind} ${manifest.metadata?.name}: ${e.message}`);
      process.exit(1);
    }
    console.log(`ok ${file} ${kind} ${manifest.metadata?.name}`);
  }
}
