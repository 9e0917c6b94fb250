// Drives inferd's Messages API with the official Anthropic SDK and prints what the SDK parsed as one JSON object.
// The one argument is a JSON object: baseUrl, scenarios (names below), and the models and schema they use.
const Anthropic = require('@anthropic-ai/sdk');

const config = JSON.parse(process.argv[2]);
const client = new Anthropic({ baseURL: config.baseUrl, apiKey: 'sk-dummy', maxRetries: 0, timeout: 60_000 });
const user = (text) => [{ role: 'user', content: text }];

const WEATHER = {
  name: 'get_weather',
  description: 'The weather in a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

async function streamed(params) {
  const stream = client.messages.stream(params);
  const events = [];
  stream.on('streamEvent', (event) => events.push(event.type + (event.delta?.type ? ':' + event.delta.type : '')));
  const final = await stream.finalMessage();
  return { events, final };
}

const scenarios = {
  async text() {
    const params = { model: config.modelText, max_tokens: 50, messages: user('Hi'), system: 'Be brief.' };
    const created = await client.messages.create(params);
    const counted = await client.messages.countTokens({ model: params.model, messages: params.messages, system: params.system });
    const beta = await client.beta.messages.create({ ...params, betas: ['interleaved-thinking-2025-05-14'] });
    return { created, counted, beta, stream: await streamed(params) };
  },

  async thinking() {
    const params = { model: config.modelThinking, max_tokens: 2000, messages: user('Think first'),
      thinking: { type: 'enabled', budget_tokens: 1024 } };
    return { created: await client.messages.create(params), stream: await streamed(params) };
  },

  async tools() {
    const model = config.modelTools;
    const params = { model, max_tokens: 100, tools: [WEATHER], messages: user('Weather in Paris?') };
    const first = await client.messages.create(params);
    const call = first.content.find((b) => b.type === 'tool_use');
    const followUp = await client.messages.create({ ...params, messages: [
      ...params.messages,
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: '18C and sunny' }] },
    ] });
    return { first, followUp, stream: await streamed(params) };
  },

  async structured() {
    const model = config.modelStructured;
    const schema = config.schema;
    const tool = { name: 'record_city', description: 'Records a city', input_schema: schema };
    const params = { model, max_tokens: 200, temperature: 0.8, top_k: 40, tools: [tool],
      tool_choice: { type: 'tool', name: 'record_city' }, messages: user('Name a city.') };
    return { created: await client.messages.create(params), stream: await streamed(params) };
  },

  async errors() {
    try {
      await client.messages.create({ model: 'no-such-model', max_tokens: 5, messages: user('Hi') });
      return { thrown: false };
    } catch (e) {
      return { thrown: true, name: e.constructor.name, status: e.status, type: e.error?.error?.type, requestId: e.requestID };
    }
  },

  async cancel() {
    const stream = client.messages.stream({ model: config.modelSlow, max_tokens: 1000, messages: user('Go on') });
    let deltas = 0;
    for await (const event of stream) {
      if (event.type === 'content_block_delta' && ++deltas === 2) {
        stream.abort();
        break;
      }
    }
    return { deltas };
  },
};

(async () => {
  const out = {};
  for (const name of config.scenarios) out[name] = await scenarios[name]();
  process.stdout.write(JSON.stringify(out));
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
