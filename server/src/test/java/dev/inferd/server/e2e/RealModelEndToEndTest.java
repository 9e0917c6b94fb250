package dev.inferd.server.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.errors.BadRequestException;
import com.openai.helpers.ChatCompletionAccumulator;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import com.openai.models.completions.Completion;
import com.openai.models.completions.CompletionChoice;
import com.openai.models.completions.CompletionCreateParams;
import com.openai.models.models.Model;
import dev.inferd.engine.Fixtures;
import dev.inferd.engine.generate.LocalTextGenerator;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.server.http.InferdServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/**
 * The real engine on the real tiny model (stories260K), served over HTTP and driven by the official
 * OpenAI Java SDK: the golden greedy text of llama.cpp must come back through the whole stack.
 */
class RealModelEndToEndTest {
    private static final String MODEL = "stories-260k";
    private static final String SMALL_CONTEXT_MODEL = "stories-260k-ctx16";

    private static InferdServer server;
    private static OpenAIClient client;
    private static JsonNode golden;

    @BeforeAll
    static void start() throws IOException {
        Path file = Fixtures.storiesModel();
        golden = new ObjectMapper().readTree(Fixtures.require("golden/stories260K-greedy.json").toFile()).get("cases");
        Map<String, TextGenerator> models = new LinkedHashMap<>();
        models.put(MODEL, LocalTextGenerator.open(file, new LocalTextGenerator.Options(MODEL, null, 0)));
        models.put(SMALL_CONTEXT_MODEL, LocalTextGenerator.open(file, new LocalTextGenerator.Options(SMALL_CONTEXT_MODEL, null, 16)));
        server = InferdServer.start("127.0.0.1", 0, models);
        client = OpenAIOkHttpClient.builder()
                .baseUrl("http://127.0.0.1:" + server.port() + "/v1")
                .apiKey("sk-anything")
                .maxRetries(0)
                .responseValidation(true)
                .timeout(Duration.ofSeconds(60))
                .build();
    }

    @AfterAll
    static void stop() {
        if (client != null) client.close();
        if (server != null) server.close();
    }

    private static CompletionCreateParams.Builder greedyCompletion(String prompt, long maxTokens) {
        return CompletionCreateParams.builder().model(MODEL).prompt(prompt).maxTokens(maxTokens).temperature(0.0);
    }

    @Test
    void listsTheServedModels() {
        assertThat(client.models().list().data()).extracting(Model::id).containsExactly(MODEL, SMALL_CONTEXT_MODEL);
        Model model = client.models().retrieve(MODEL);
        assertThat(model.ownedBy()).isNotBlank();
        assertThat(model.created()).isPositive();
    }

    @Test
    void legacyCompletionReproducesLlamaCppGreedyText() {
        for (JsonNode c : golden) {
            Completion completion = client.completions().create(greedyCompletion(c.get("prompt").asText(), 48).build());
            CompletionChoice choice = completion.choices().getFirst();
            assertThat(choice.text()).as(c.get("prompt").asText()).isEqualTo(c.get("completion").asText());
            assertThat(choice.finishReason()).isEqualTo(CompletionChoice.FinishReason.LENGTH);
            var usage = completion.usage().orElseThrow();
            assertThat(usage.promptTokens()).isEqualTo(c.get("prompt_tokens").size());
            assertThat(usage.completionTokens()).isEqualTo(48);
            assertThat(usage.totalTokens()).isEqualTo(c.get("prompt_tokens").size() + 48);
        }
    }

    @Test
    void legacyLogprobsMatchLlamaCpp() {
        JsonNode c = golden.get(0);
        Completion completion = client.completions().create(greedyCompletion(c.get("prompt").asText(), 8).logprobs(5).build());
        var logprobs = completion.choices().getFirst().logprobs().orElseThrow();
        for (int i = 0; i < 8; i++) {
            double expected = c.get("steps").get(i).get("logprob").asDouble();
            assertThat(logprobs.tokenLogprobs().orElseThrow().get(i)).isCloseTo(expected, within(2e-3));
        }
        assertThat(logprobs.topLogprobs().orElseThrow().getFirst()._additionalProperties()).hasSize(5);
    }

    @Test
    void stopStringCutsTheTextAndNeverAppears() {
        JsonNode c = golden.get(0);
        String full = c.get("completion").asText();
        Completion completion = client.completions().create(greedyCompletion(c.get("prompt").asText(), 48).stop("Lily").build());
        CompletionChoice choice = completion.choices().getFirst();
        assertThat(choice.text()).isEqualTo(full.substring(0, full.indexOf("Lily")));
        assertThat(choice.finishReason()).isEqualTo(CompletionChoice.FinishReason.STOP);
    }

    @Test
    void streamedChatEqualsTheNonStreamedAnswerAndCarriesUsage() {
        ChatCompletionCreateParams params = ChatCompletionCreateParams.builder().model(MODEL)
                .addSystemMessage("You tell stories.")
                .addUserMessage("Once upon a time")
                .temperature(0.0).maxCompletionTokens(40).stop(". ")
                .streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true).build())
                .build();
        ChatCompletion plain = client.chat().completions().create(params);
        var accumulator = ChatCompletionAccumulator.create();
        try (StreamResponse<ChatCompletionChunk> stream = client.chat().completions().createStreaming(params)) {
            stream.stream().forEach(accumulator::accumulate);
        }
        ChatCompletion streamed = accumulator.chatCompletion();
        String text = plain.choices().getFirst().message().content().orElseThrow();
        assertThat(text).isNotBlank().doesNotContain(". ");
        assertThat(streamed.choices().getFirst().message().content()).hasValue(text);
        assertThat(streamed.choices().getFirst().finishReason()).isEqualTo(plain.choices().getFirst().finishReason());
        assertThat(streamed.usage().orElseThrow().completionTokens()).isEqualTo(plain.usage().orElseThrow().completionTokens());
        assertThat(streamed.usage().orElseThrow().promptTokens()).isEqualTo(plain.usage().orElseThrow().promptTokens());
    }

    @Test
    void sameSeedGivesTheSameChoicesAndChoicesDiffer() {
        ChatCompletionCreateParams params = ChatCompletionCreateParams.builder().model(MODEL)
                .addUserMessage("Tell me about a cat")
                .temperature(1.0).seed(1234).n(3).maxCompletionTokens(24).build();
        ChatCompletion first = client.chat().completions().create(params);
        ChatCompletion second = client.chat().completions().create(params);
        assertThat(first.choices()).hasSize(3);
        var texts = first.choices().stream().map(ch -> ch.message().content().orElseThrow()).toList();
        assertThat(second.choices().stream().map(ch -> ch.message().content().orElseThrow()).toList()).isEqualTo(texts);
        assertThat(texts.stream().distinct().count()).isGreaterThan(1);
        // Usage sums the completion tokens of all choices; the prompt is counted once.
        assertThat(first.usage().orElseThrow().completionTokens()).isBetween(3L, 3L * 24);
        assertThat(first.usage().orElseThrow().promptTokens()).isEqualTo(second.usage().orElseThrow().promptTokens());
    }

    @Test
    void aRepeatedConversationReportsCachedPromptTokens() {
        ChatCompletionCreateParams params = ChatCompletionCreateParams.builder().model(MODEL)
                .addSystemMessage("You tell short stories about animals who live in the forest near the river.")
                .addUserMessage("Tell me one about a fox and a bear who become friends after a storm.")
                .temperature(0.0).maxCompletionTokens(4).build();
        ChatCompletion first = client.chat().completions().create(params);
        ChatCompletion second = client.chat().completions().create(params);
        long cached = second.usage().orElseThrow().promptTokensDetails().orElseThrow().cachedTokens().orElseThrow();
        assertThat(cached).isPositive().isLessThan(second.usage().orElseThrow().promptTokens());
        assertThat(second.choices().getFirst().message().content()).isEqualTo(first.choices().getFirst().message().content());
    }

    @Test
    void aPromptLongerThanTheContextIsABadRequest() {
        assertThatThrownBy(() -> client.completions().create(CompletionCreateParams.builder()
                .model(SMALL_CONTEXT_MODEL).prompt("Once upon a time there was a little girl named Lily who loved the park").build()))
                .isInstanceOf(BadRequestException.class)
                .hasMessageContaining("context");
    }

    @Test
    void generationStopsAtTheContextLimit() {
        Completion completion = client.completions().create(CompletionCreateParams.builder()
                .model(SMALL_CONTEXT_MODEL).prompt("Once upon a time").temperature(0.0).build());
        assertThat(completion.choices().getFirst().finishReason()).isEqualTo(CompletionChoice.FinishReason.LENGTH);
        assertThat(completion.usage().orElseThrow().totalTokens()).isEqualTo(16);
    }
}
