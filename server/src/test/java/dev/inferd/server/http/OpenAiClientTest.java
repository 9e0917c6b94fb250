package dev.inferd.server.http;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.errors.BadRequestException;
import com.openai.errors.NotFoundException;
import com.openai.helpers.ChatCompletionAccumulator;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.chat.completions.ChatCompletionStreamOptions;
import com.openai.models.completions.Completion;
import com.openai.models.completions.CompletionChoice;
import com.openai.models.completions.CompletionCreateParams;
import com.openai.models.models.Model;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** End to end through the official OpenAI Java SDK, with strict response validation on. */
class OpenAiClientTest {

    private static TestServer server;
    private static OpenAIClient client;

    @BeforeAll
    static void start() {
        server = new TestServer();
        client = OpenAIOkHttpClient.builder()
                .baseUrl(server.base() + "/v1")
                .apiKey("sk-local")
                .maxRetries(0)
                .responseValidation(true)
                .timeout(Duration.ofSeconds(20))
                .build();
    }

    @AfterAll
    static void stop() {
        client.close();
        server.close();
    }

    private static ChatCompletionCreateParams.Builder story() {
        return ChatCompletionCreateParams.builder().model(TestServer.MODEL).addUserMessage("Tell me a story");
    }

    @Test
    void listsAndRetrievesModels() {
        assertThat(client.models().list().data()).extracting(Model::id)
                .containsExactly(TestServer.MODEL, TestServer.ODD_MODEL);
        Model odd = client.models().retrieve(TestServer.ODD_MODEL);
        assertThat(odd.id()).isEqualTo(TestServer.ODD_MODEL);
        assertThat(odd.created()).isEqualTo(1_700_000_000L);
        assertThat(odd.ownedBy()).isEqualTo("inferd-tests");
    }

    @Test
    void chatCompletion() {
        ChatCompletion completion = client.chat().completions().create(story().build());

        assertThat(completion.id()).startsWith("chatcmpl-");
        assertThat(completion.choices()).hasSize(1);
        ChatCompletion.Choice choice = completion.choices().getFirst();
        assertThat(choice.message().content()).hasValue(FakeTextGenerator.TEXT);
        assertThat(choice.finishReason()).isEqualTo(ChatCompletion.Choice.FinishReason.STOP);
        assertThat(completion.usage().orElseThrow().totalTokens()).isEqualTo(19);
    }

    @Test
    void streamedChatAccumulatesToTheNonStreamedAnswerWithUsage() {
        ChatCompletionCreateParams params = story().maxCompletionTokens(5)
                .streamOptions(ChatCompletionStreamOptions.builder().includeUsage(true).build()).build();
        ChatCompletionAccumulator accumulator = ChatCompletionAccumulator.create();
        try (StreamResponse<ChatCompletionChunk> stream = client.chat().completions().createStreaming(params)) {
            stream.stream().forEach(accumulator::accumulate);
        }
        ChatCompletion streamed = accumulator.chatCompletion();
        ChatCompletion plain = client.chat().completions().create(params);

        assertThat(streamed.choices().getFirst().message().content()).hasValue("Once upon a time, there");
        assertThat(streamed.choices().getFirst().message().content()).isEqualTo(plain.choices().getFirst().message().content());
        assertThat(streamed.choices().getFirst().finishReason()).isEqualTo(ChatCompletion.Choice.FinishReason.LENGTH);
        assertThat(streamed.usage().orElseThrow().completionTokens()).isEqualTo(5);
        assertThat(streamed.usage().orElseThrow().promptTokens()).isEqualTo(plain.usage().orElseThrow().promptTokens());
    }

    @Test
    void severalChoices() {
        ChatCompletion completion = client.chat().completions().create(story().n(2).maxCompletionTokens(3).build());

        assertThat(completion.choices()).extracting(ChatCompletion.Choice::index).containsExactly(0L, 1L);
        ChatCompletionAccumulator accumulator = ChatCompletionAccumulator.create();
        try (var stream = client.chat().completions().createStreaming(story().n(2).maxCompletionTokens(3).build())) {
            stream.stream().forEach(accumulator::accumulate);
        }
        assertThat(accumulator.chatCompletion().choices()).hasSize(2)
                .allSatisfy(c -> assertThat(c.message().content()).hasValue("Once upon a"));
    }

    @Test
    void logprobsParse() {
        ChatCompletion completion = client.chat().completions().create(
                story().logprobs(true).topLogprobs(2L).maxCompletionTokens(2).build());

        var content = completion.choices().getFirst().logprobs().orElseThrow().content().orElseThrow();
        assertThat(content).hasSize(2);
        assertThat(content.get(1).token()).isEqualTo(" upon");
        assertThat(content.get(1).topLogprobs()).hasSize(2);
        assertThat(content.get(1).bytes().orElseThrow()).containsExactly(32L, 117L, 112L, 111L, 110L);
    }

    @Test
    void legacyCompletionPlainAndStreamed() {
        CompletionCreateParams params = CompletionCreateParams.builder().model(TestServer.MODEL)
                .prompt("Once").maxTokens(4).build();
        Completion completion = client.completions().create(params);

        assertThat(completion.choices().getFirst().text()).isEqualTo("Once upon a time,");
        assertThat(completion.choices().getFirst().finishReason()).isEqualTo(CompletionChoice.FinishReason.LENGTH);
        assertThat(completion.usage().orElseThrow().completionTokens()).isEqualTo(4);

        // The SDK types a legacy chunk as a whole Completion, whose finish_reason is required, while
        // OpenAI itself streams finish_reason null until the end: strict validation cannot read any
        // real legacy stream, so this part runs with the SDK's default (lenient) validation.
        OpenAIClient lenient = client.withOptions(o -> o.responseValidation(false)); // shares the client's pool
        String streamed;
        try (StreamResponse<Completion> stream = lenient.completions().createStreaming(params)) {
            streamed = stream.stream().flatMap(c -> c.choices().stream()).map(CompletionChoice::text)
                    .collect(Collectors.joining());
        }
        assertThat(streamed).isEqualTo("Once upon a time,");
    }

    @Test
    void invalidTemperatureIsBadRequest() {
        assertThatThrownBy(() -> client.chat().completions().create(story().temperature(3.0).build()))
                .isInstanceOfSatisfying(BadRequestException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(400);
                    assertThat(e.param()).hasValue("temperature");
                    assertThat(e.type()).hasValue("invalid_request_error");
                    assertThat(e.getMessage()).contains("must be between 0 and 2");
                    assertThat(e.headers().values("x-request-id")).hasSize(1);
                    // Known cost of the seed contract's integer `code`: the SDK types it as a string, so
                    // reading e.code() throws. Type, param, message and status all work.
                    assertThatThrownBy(e::code).hasMessageContaining("`code` is invalid, received 400");
                });
    }

    @Test
    void unknownModelIsNotFound() {
        assertThatThrownBy(() -> client.chat().completions().create(
                ChatCompletionCreateParams.builder().model("gpt-5").addUserMessage("hi").build()))
                .isInstanceOf(NotFoundException.class)
                .hasMessageContaining("`gpt-5` does not exist");
        assertThatThrownBy(() -> client.models().retrieve("gpt-5")).isInstanceOf(NotFoundException.class);
    }
}
