package dev.inferd.server.e2e;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.InputFormat;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonValue;
import com.openai.helpers.ChatCompletionAccumulator;
import com.openai.models.FunctionDefinition;
import com.openai.models.FunctionParameters;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionFunctionTool;
import dev.inferd.engine.Fixtures;
import dev.inferd.engine.chat.ChatFormat;
import dev.inferd.engine.chat.RenderedPrompt;
import dev.inferd.engine.generate.Generation;
import dev.inferd.engine.generate.GenerationRequest;
import dev.inferd.engine.generate.LocalTextGenerator;
import dev.inferd.engine.generate.ModelDescription;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.engine.grammar.Expr;
import dev.inferd.engine.grammar.Grammar;
import dev.inferd.engine.grammar.GrammarMatcher;
import dev.inferd.engine.grammar.TokenMasks;
import dev.inferd.engine.grammar.TokenVocabulary;
import dev.inferd.engine.sample.TokenConstraint;
import dev.inferd.engine.generate.ChatMessage;
import dev.inferd.server.http.InferdServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code tool_choice: auto} over HTTP with the official OpenAI Java SDK: once a free reply opens a
 * call, the call follows the tool's schema. stories260K (no chat template, so the generic call form)
 * never opens a call by itself: a test hook in front of the model writes the opening {@code {"name"}
 * as if the model had chosen it, and from there on only the server's constraint decides.
 */
class AutoToolCallEndToEndTest {
    private static final String MODEL = "stories-260k";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
    private static final String WEATHER_PARAMETERS = """
            {"type":"object","properties":{
              "city":{"type":"string","minLength":1,"maxLength":10},
              "unit":{"enum":["celsius","fahrenheit"]}},
             "required":["city","unit"],"additionalProperties":false}""";
    private static final String TIME_PARAMETERS = """
            {"type":"object","properties":{"zone":{"enum":["UTC","CET"]}},"required":["zone"],"additionalProperties":false}""";

    private static InferdServer server;
    private static OpenAIClient client;

    @BeforeAll
    static void start() throws IOException {
        var model = LocalTextGenerator.open(Fixtures.storiesModel(), new LocalTextGenerator.Options(MODEL, null, 0));
        server = InferdServer.start("127.0.0.1", 0, Map.of(MODEL, new OpensACall(model, "{\"name\"")));
        client = OpenAIOkHttpClient.builder().baseUrl("http://127.0.0.1:" + server.port() + "/v1").apiKey("sk-anything")
                .maxRetries(0).responseValidation(true).timeout(Duration.ofSeconds(60)).build();
    }

    @AfterAll
    static void stop() {
        if (client != null) client.close();
        if (server != null) server.close();
    }

    private static ChatCompletionFunctionTool tool(String name, String parameters) throws IOException {
        Map<String, JsonValue> schema = new java.util.LinkedHashMap<>();
        JSON.readTree(parameters).properties().forEach(e ->
                schema.put(e.getKey(), JsonValue.from(JSON.convertValue(e.getValue(), Object.class))));
        return ChatCompletionFunctionTool.builder().function(FunctionDefinition.builder().name(name)
                .parameters(FunctionParameters.builder().additionalProperties(schema).build()).build()).build();
    }

    private static ChatCompletionCreateParams request(long seed) throws IOException {
        return ChatCompletionCreateParams.builder().model(MODEL).addUserMessage("Weather or time?")
                .addTool(tool("get_weather", WEATHER_PARAMETERS)).addTool(tool("get_time", TIME_PARAMETERS))
                .parallelToolCalls(false).maxCompletionTokens(300).seed(seed).build();
    }

    private static void assertValid(ChatCompletion.Choice choice) {
        assertThat(choice.finishReason()).isEqualTo(ChatCompletion.Choice.FinishReason.TOOL_CALLS);
        assertThat(choice.message().content().orElse("")).isEmpty();
        var calls = choice.message().toolCalls().orElseThrow();
        assertThat(calls).hasSize(1);
        var function = calls.getFirst().asFunction().function();
        assertThat(function.name()).isIn("get_weather", "get_time");
        String schema = function.name().equals("get_time") ? TIME_PARAMETERS : WEATHER_PARAMETERS;
        assertThat(SCHEMAS.getSchema(schema, InputFormat.JSON).validate(function.arguments(), InputFormat.JSON))
                .as(function.arguments()).isEmpty();
    }

    @Test
    void aCallOpenedInAFreeReplyFollowsItsToolsSchema() throws IOException {
        for (long seed = 0; seed < 4; seed++) {
            assertValid(client.chat().completions().create(request(seed)).choices().getFirst());
        }
    }

    @Test
    void streamedThroughTheAccumulator() throws IOException {
        var accumulator = ChatCompletionAccumulator.create();
        try (var stream = client.chat().completions().createStreaming(request(11))) {
            stream.stream().forEach(accumulator::accumulate);
        }
        assertValid(accumulator.chatCompletion().choices().getFirst());
    }

    /** The model, except that each reply's first tokens spell {@code opening}; the request's own constraint sees them as chosen. */
    private record OpensACall(TextGenerator model, String opening) implements TextGenerator {
        @Override public ModelDescription description() { return model.description(); }
        @Override public int vocabularySize() { return model.vocabularySize(); }
        @Override public int[] chatPrompt(List<ChatMessage> messages) { return model.chatPrompt(messages); }
        @Override public int[] chatPrompt(List<ChatMessage> messages, int maxTokens) { return model.chatPrompt(messages, maxTokens); }
        @Override public ChatFormat chatFormat() { return model.chatFormat(); }
        @Override public int[] chatPrompt(RenderedPrompt prompt) { return model.chatPrompt(prompt); }
        @Override public TokenVocabulary vocabulary() { return model.vocabulary(); }
        @Override public int[] textPrompt(String prompt) { return model.textPrompt(prompt); }
        @Override public int[] textPrompt(String prompt, int maxTokens) { return model.textPrompt(prompt, maxTokens); }
        @Override public void close() { model.close(); }

        @Override
        public Generation submit(GenerationRequest r) {
            TokenConstraint.Factory inner = r.constraint();
            Grammar spelled = Grammar.of(Expr.literal(opening), "opening");
            TokenConstraint.Factory hooked = () -> new Opening(spelled.matcher(vocabulary()), inner == null ? null : inner.forSequence());
            return model.submit(new GenerationRequest(r.prompt(), r.n(), r.maxTokens(), r.stop(), r.sampling(), r.logprobs(),
                    hooked, r.controlTokenText()));
        }
    }

    private static final class Opening implements TokenConstraint {
        private final GrammarMatcher opening;
        private final TokenConstraint inner;
        private final long[] allowed;

        Opening(GrammarMatcher opening, TokenConstraint inner) {
            this.opening = opening;
            this.inner = inner;
            this.allowed = new long[opening.vocabulary().maskWords()];
        }

        @Override
        public void mask(float[] logits) {
            if (!opening.isComplete()) {
                opening.fillMask(allowed);
                TokenMasks.apply(allowed, logits, 0, Math.min(logits.length, opening.vocabulary().size()));
            }
            if (inner != null) inner.mask(logits);
        }

        @Override
        public void accept(int token) {
            if (!opening.isComplete()) opening.accept(token);
            if (inner != null) inner.accept(token);
        }
    }
}
