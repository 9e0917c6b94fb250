package dev.inferd.server.e2e;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.errors.BadRequestException;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.completions.Completion;
import com.openai.models.completions.CompletionCreateParams;
import dev.inferd.engine.generate.LocalTextGenerator;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.engine.model.SyntheticModels;
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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A model served without a context length gets the context it was trained for as far as its KV memory holds:
 * here a synthetic Llama trained on 8,192 positions whose KV memory holds 6,000, so prompts beyond 4,096 tokens
 * run, and one beyond 6,000 is a 400 that names the context and the prompt's tokens, through the OpenAI Java SDK.
 */
class LongPromptEndToEndTest {
    private static final String MODEL = "long";
    private static final int TRAINED = 8192;
    private static final int SERVED = 6000;

    @TempDir
    static Path dir;
    private static LocalTextGenerator generator;
    private static InferdServer server;
    private static OpenAIClient client;

    @BeforeAll
    static void start() throws IOException {
        // one layer of two heads: a 5,000-token prompt's attention stays cheap
        var small = SyntheticModels.smallLlama(GGMLType.F32);
        var spec = new SyntheticModels.Spec(small.architecture(), 32, 1, 2, 1, 64, small.vocabSize(), TRAINED,
                small.weightType(), small.tiedOutput(), small.biases(), small.ropeFreqBase(), small.logitScale(), small.seed());
        Path file = SyntheticModels.write(spec, dir.resolve("long.gguf"));
        long bytesPerPosition = 2L * spec.blockCount() * spec.headCountKv() * spec.headDim() * 2;
        generator = LocalTextGenerator.open(file, new LocalTextGenerator.Options(MODEL, null, 0)
                .withParallel(2).withKvMemory(SERVED * bytesPerPosition));
        server = InferdServer.start("127.0.0.1", 0, Map.<String, TextGenerator>of(MODEL, generator));
        client = OpenAIOkHttpClient.builder().baseUrl("http://127.0.0.1:" + server.port() + "/v1").apiKey("sk-anything")
                .maxRetries(0).timeout(Duration.ofSeconds(60)).build();
    }

    @AfterAll
    static void stop() {
        if (client != null) client.close();
        if (server != null) server.close();
        if (generator != null) generator.close();
    }

    /** {@code words} one-token words after the start token. */
    private static String words(int words) {
        return " ab".repeat(words);
    }

    @Test
    void theContextIsWhatTheKvMemoryHoldsOfTheTrainedOne() {
        assertThat(generator.description().contextLength()).isEqualTo(SERVED);
        assertThat(generator.trainedContextLength()).isEqualTo(TRAINED);
    }

    @Test
    void aPromptBeyond4096TokensRuns() {
        Completion done = client.completions().create(CompletionCreateParams.builder().model(MODEL)
                .prompt(words(5000)).maxTokens(2).temperature(0.0).build());
        assertThat(done.usage().orElseThrow().promptTokens()).isGreaterThan(5000);
        assertThat(done.usage().orElseThrow().completionTokens()).isEqualTo(2);
    }

    @Test
    void aPromptBeyondTheContextIsABadRequestNamingBothNumbers() {
        assertThatThrownBy(() -> client.completions().create(CompletionCreateParams.builder().model(MODEL)
                .prompt(words(7000)).maxTokens(2).build()))
                .isInstanceOfSatisfying(BadRequestException.class, e -> {
                    assertThat(e.param()).hasValue("prompt");
                    assertThat(e.getMessage()).contains("maximum context length is " + SERVED + " tokens")
                            .containsPattern("your prompt resulted in (at least )?[0-9]+ tokens");
                });
        assertThatThrownBy(() -> client.chat().completions().create(ChatCompletionCreateParams.builder().model(MODEL)
                .addUserMessage(words(7000)).build()))
                .isInstanceOfSatisfying(BadRequestException.class, e -> {
                    assertThat(e.param()).hasValue("messages");
                    assertThat(e.getMessage()).contains("maximum context length is " + SERVED + " tokens")
                            .containsPattern("your messages resulted in (at least )?[0-9]+ tokens");
                });
    }

    @Test
    void aChatCapBeyondTheRoomLeftIsABadRequestWithTheCounts() {
        assertThatThrownBy(() -> client.chat().completions().create(ChatCompletionCreateParams.builder().model(MODEL)
                .addUserMessage(words(100)).maxCompletionTokens(SERVED).build()))
                .isInstanceOfSatisfying(BadRequestException.class, e -> {
                    assertThat(e.param()).hasValue("max_tokens");
                    assertThat(e.getMessage()).contains("maximum context length is " + SERVED + " tokens")
                            .containsPattern("in the messages, " + SERVED + " in the completion");
                });
    }
}
