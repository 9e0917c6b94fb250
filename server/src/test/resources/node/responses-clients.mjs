// Drives /v1/responses with the Node clients people use: the OpenAI SDK (create and stream), the Vercel AI SDK
// (whose OpenAI provider speaks Responses by default) and the OpenAI Agents SDK. Prints one JSON line per client:
// {"client": ..., "ok": true, "text": ...} or {"client": ..., "ok": false, "error": ...}. Exits 0 either way.
// Usage: node responses-clients.mjs <base-url ending in /v1> <model>
import OpenAI from 'openai';
import { generateText, streamText } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { Agent, run, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled } from '@openai/agents';

const [baseURL, model] = process.argv.slice(2);
const apiKey = 'sk-local';

async function attempt(name, body) {
  try {
    const text = await body();
    console.log(JSON.stringify({ client: name, ok: true, text }));
  } catch (e) {
    console.log(JSON.stringify({ client: name, ok: false, error: String(e?.stack ?? e) }));
  }
}

const openai = new OpenAI({ baseURL, apiKey, maxRetries: 0 });

await attempt('openai.responses.create', async () => {
  const r = await openai.responses.create({ model, input: 'Tell me a story', instructions: 'Be brief.' });
  if (r.status !== 'completed' && r.status !== 'incomplete') throw new Error('status ' + r.status);
  return r.output_text;
});

await attempt('openai.responses.stream', async () => {
  const stream = openai.responses.stream({ model, input: 'Tell me a story' });
  let deltas = '';
  stream.on('response.output_text.delta', (e) => { deltas += e.delta; });
  const final = await stream.finalResponse();
  if (final.output_text !== deltas) throw new Error('deltas ' + JSON.stringify(deltas) + ' != ' + JSON.stringify(final.output_text));
  return final.output_text;
});

const provider = createOpenAI({ baseURL, apiKey });

await attempt('ai.generateText', async () => {
  const r = await generateText({ model: provider(model), prompt: 'Tell me a story', maxRetries: 0 });
  return r.text;
});

await attempt('ai.streamText', async () => {
  const r = streamText({ model: provider(model), prompt: 'Tell me a story', maxRetries: 0 });
  let text = '';
  for await (const part of r.textStream) text += part;
  return text;
});

await attempt('@openai/agents.run', async () => {
  setTracingDisabled(true);
  setDefaultOpenAIClient(new OpenAI({ baseURL, apiKey, maxRetries: 0 }));
  setOpenAIAPI('responses');
  const agent = new Agent({ name: 'Storyteller', instructions: 'Tell short stories.', model });
  const result = await run(agent, 'Tell me a story');
  return result.finalOutput;
});
