package dev.inferd.server.e2e;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.JsonValue;
import com.openai.errors.BadRequestException;
import com.openai.models.FunctionDefinition;
import com.openai.models.FunctionParameters;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionFunctionTool;
import com.openai.models.chat.completions.ChatCompletionToolChoiceOption;
import dev.inferd.engine.generate.LocalTextGenerator;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.engine.model.synthetic.TinyThinkingChatModel;
import dev.inferd.server.http.InferdServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tool calls of a thinking model under small token limits, with the OpenAI Java SDK against a tiny
 * random-weight model whose template thinks in Qwen3's manner (its prompt opens {@code <think>}):
 * a forced call is complete within the limit, and with {@code auto} the thinking is closed early
 * enough for a call the model then opens to be complete too.
 */
class ThinkingToolCallWithinLimitEndToEndTest {
    private static final String MODEL = "tiny-thinking";
    private static final String WEATHER_PARAMETERS = """
            {"type":"object","properties":{
              "city":{"type":"string","minLength":1},
              "unit":{"enum":["celsius","fahrenheit"]},
              "days":{"type":"integer","minimum":1,"maximum":14}},
             "required":["city","unit","days"],"additionalProperties":false}""";

    @TempDir
    static Path dir;
    private static InferdServer server;
    private static OpenAIClient client;

    @BeforeAll
    static void start() throws IOException {
        Path file = TinyThinkingChatModel.write(dir.resolve("tiny-thinking.gguf"));
        Map<String, TextGenerator> models = Map.of(MODEL,
                LocalTextGenerator.open(file, new LocalTextGenerator.Options(MODEL, null, 0)));
        server = InferdServer.start("127.0.0.1", 0, models);
        client = OpenAIOkHttpClient.builder().baseUrl("http://127.0.0.1:" + server.port() + "/v1").apiKey("sk-anything")
                .maxRetries(0).responseValidation(true).timeout(Duration.ofSeconds(60)).build();
    }

    @AfterAll
    static void stop() {
        if (client != null) client.close();
        if (server != null) server.close();
    }

    private static ChatCompletionFunctionTool weatherTool() throws IOException {
        return ChatCompletionFunctionTool.builder().function(FunctionDefinition.builder().name("get_weather")
                .parameters(FunctionParameters.builder().additionalProperties(
                        StructuredOutputWithinLimitEndToEndTest.schemaMap(WEATHER_PARAMETERS)).build()).build()).build();
    }

    private static void assertOneValidCall(ChatCompletion.Choice choice, String where) {
        var calls = choice.message().toolCalls().orElseThrow(() -> new AssertionError("no call: " + where));
        assertThat(calls).as(where).hasSize(1);
        var function = calls.getFirst().asFunction().function();
        assertThat(function.name()).isEqualTo("get_weather");
        assertThat(StructuredOutputWithinLimitEndToEndTest.complaints(WEATHER_PARAMETERS, function.arguments()))
                .as(where).isEmpty();
    }

    private static ChatCompletionCreateParams.Builder required() throws IOException {
        return ChatCompletionCreateParams.builder().model(MODEL).addUserMessage("Weather in Paris?")
                .addTool(weatherTool()).toolChoice(ChatCompletionToolChoiceOption.ofAuto(ChatCompletionToolChoiceOption.Auto.REQUIRED))
                .temperature(1.0);
    }

    /** The fewest tokens a forced call takes, as the 400 for a smaller limit says. */
    private static int leastForACall() throws IOException {
        try {
            client.chat().completions().create(required().maxCompletionTokens(2).build());
            throw new AssertionError("a limit of two tokens was accepted");
        } catch (BadRequestException e) {
            var m = java.util.regex.Pattern.compile("needs at least (\\d+) tokens").matcher(e.getMessage());
            assertThat(m.find()).as(e.getMessage()).isTrue();
            return Integer.parseInt(m.group(1));
        }
    }

    @Test
    void requiredCallIsCompleteWithinASmallLimit() throws IOException {
        var request = required();
        int least = leastForACall();
        for (int extra : new int[] {0, 3, 10}) {
            for (long seed = 0; seed < 3; seed++) {
                var c = client.chat().completions().create(request.seed(seed).maxCompletionTokens(least + extra).build());
                var choice = c.choices().getFirst();
                assertOneValidCall(choice, "limit " + (least + extra) + ", seed " + seed + ": " + choice);
                assertThat(c.usage().orElseThrow().completionTokens()).isLessThanOrEqualTo(least + extra);
            }
        }
    }

    /**
     * The model is pushed towards {@code <tool_call>} (a logit bias), which inside its thinking is only
     * thinking: the thinking must be closed while a call still fits, and the call that follows is complete.
     */
    @Test
    void autoClosesTheThinkingWhileACallStillFits() throws IOException {
        var bias = ChatCompletionCreateParams.LogitBias.builder()
                .putAdditionalProperty(Integer.toString(TinyThinkingChatModel.TOOL_CALL), JsonValue.from(100)).build();
        int least = leastForACall();
        // the thinking's closing tag, then the call from its marker on
        for (int limit : new int[] {least + 1, least + 5, least + 20}) {
            for (long seed = 0; seed < 2; seed++) {
                var c = client.chat().completions().create(ChatCompletionCreateParams.builder().model(MODEL)
                        .addUserMessage("Weather in Paris?").addTool(weatherTool()).logitBias(bias).temperature(1.0)
                        .seed(seed).maxCompletionTokens(limit).build());
                var choice = c.choices().getFirst();
                String where = "limit " + limit + ", seed " + seed + ": " + choice;
                assertOneValidCall(choice, where);
                if (limit > least + 1) {
                    assertThat(choice.message()._additionalProperties().get("reasoning_content")).as(where).isNotNull();
                }
            }
        }
    }
}
