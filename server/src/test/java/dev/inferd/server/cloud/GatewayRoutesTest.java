package dev.inferd.server.cloud;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.errors.AnthropicServiceException;
import com.anthropic.errors.UnauthorizedException;
import com.anthropic.helpers.MessageAccumulator;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCountTokensParams;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.errors.NotFoundException;
import com.openai.models.audio.AudioModel;
import com.openai.models.audio.transcriptions.TranscriptionCreateParams;
import com.openai.models.responses.Response;
import com.openai.models.responses.ResponseCreateParams;
import com.openai.models.responses.ResponseStreamEvent;
import dev.inferd.engine.Fixtures;
import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.server.cloud.catalog.ModelSpec;
import dev.inferd.server.cloud.deploy.WorkerDeployment;
import dev.inferd.server.cloud.workers.WorkerProxy;
import dev.inferd.server.http.MultipartForm;
import dev.inferd.server.store.UsageFilter;
import dev.inferd.server.store.UsageRecord;
import dev.inferd.server.store.UsageStore;
import dev.inferd.speech.audio.Audio;
import dev.inferd.speech.audio.AudioDecoder;
import dev.inferd.speech.whisper.SyntheticWhisper;
import dev.inferd.speech.whisper.WhisperShape;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The routes beyond chat through a gateway and two workers in one JVM, with the official clients: the Responses API
 * (kept responses per account in the database, a follow-up served by the other worker), Anthropic's Messages API
 * (its error shape also for the gateway's own errors), and audio uploads streamed on to a worker. The gateway's
 * usage records carry what the workers counted, as {@code cloud}'s do.
 */
class GatewayRoutesTest extends GatewayWorkersFixture {

    private String otherKey;

    @Override
    void deploy(List<ModelSpec> models) {
        super.deploy(models);
        otherKey = keyOfNewAccount("globex");
    }

    private String base() {
        return "http://127.0.0.1:" + gateway.port();
    }

    private OpenAIClient openai(String secret) {
        var client = OpenAIOkHttpClient.builder().baseUrl(base() + "/v1").apiKey(secret)
                .maxRetries(0).responseValidation(true).timeout(Duration.ofSeconds(60)).build();
        open.add(client::close);
        return client;
    }

    private AnthropicClient anthropic(String secret) {
        var client = AnthropicOkHttpClient.builder().baseUrl(base()).apiKey(secret)
                .maxRetries(0).responseValidation(true).timeout(Duration.ofSeconds(30)).build();
        open.add(client::close);
        return client;
    }

    private List<UsageRecord> records() {
        return new UsageStore(db).list(UsageFilter.account(accountId), 1000);
    }

    /** The worker that has {@code model} loaded. */
    private int servingWorker(String model) {
        for (int i = 0; i < openers.size(); i++) if (openers.get(i).loads.contains(model)) return i;
        throw new AssertionError("no worker loaded " + model);
    }

    @Test
    void responsesAreCreatedStreamedKeptPerAccountAndFollowedUpOnTheOtherWorker() {
        deploy(null);
        OpenAIClient client = openai(key);
        Response first = client.responses().create(ResponseCreateParams.builder().model("model-01").input("Tell me a story").build());
        assertThat(text(first)).isEqualTo(EchoModel.ANSWER);
        assertThat(client.responses().retrieve(first.id()).id()).isEqualTo(first.id());
        assertThat(client.responses().inputItems().list(first.id()).data()).hasSize(1);
        assertThatThrownBy(() -> openai(otherKey).responses().retrieve(first.id())).isInstanceOf(NotFoundException.class);

        Response streamed = null;
        try (var stream = client.responses().createStreaming(ResponseCreateParams.builder().model("model-01")
                .input("Tell me another").build())) {
            for (ResponseStreamEvent event : (Iterable<ResponseStreamEvent>) stream.stream()::iterator) {
                if (event.isCompleted()) streamed = event.asCompleted().response();
            }
        }
        assertThat(streamed).isNotNull();
        assertThat(text(streamed)).isEqualTo(EchoModel.ANSWER);
        assertThat(client.responses().retrieve(streamed.id()).id()).isEqualTo(streamed.id());

        // the worker that answered goes away: the other one continues from the response kept in the database
        int serving = servingWorker("model-01");
        workers.get(serving).close();
        Response next = client.responses().create(ResponseCreateParams.builder().model("model-01").input("More")
                .previousResponseId(first.id()).build());
        assertThat(openers.get(1 - serving).loads).contains("model-01");
        assertThat(next.usage().orElseThrow().inputTokens()).isGreaterThan(first.usage().orElseThrow().inputTokens());
        assertThat(client.responses().inputItems().list(next.id()).data()).hasSize(1);
        client.responses().delete(first.id());
        assertThatThrownBy(() -> client.responses().retrieve(first.id())).isInstanceOf(NotFoundException.class);

        List<UsageRecord> records = records().stream().filter(r -> r.model() != null).toList();
        assertThat(records).hasSize(3).allSatisfy(r -> {
            assertThat(r.endpoint()).isEqualTo("responses");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.completionTokens()).isEqualTo(EchoModel.ANSWER_TOKENS);
        });
        assertThat(records).extracting(UsageRecord::promptTokens).containsExactlyInAnyOrder(
                (int) first.usage().orElseThrow().inputTokens(), (int) streamed.usage().orElseThrow().inputTokens(),
                (int) next.usage().orElseThrow().inputTokens());
    }

    @Test
    void aFollowUpOfAnUnknownResponseIsRefusedByTheGatewayAsCloudRefusesIt() throws Exception {
        deploy(null);
        var response = post("/v1/responses", key, "{\"model\":\"model-02\",\"input\":\"hi\",\"previous_response_id\":\"resp_nope\"}");
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("Previous response with id 'resp_nope' not found").contains("\"param\":\"previous_response_id\"");
        assertThat(openers).allSatisfy(o -> assertThat(o.loads).isEmpty());
    }

    @Test
    void messagesAnswerAndStreamThroughTheAnthropicSdkAndAreBilled() {
        deploy(null);
        AnthropicClient client = anthropic(key);
        MessageCreateParams params = MessageCreateParams.builder().model("model-03").maxTokens(100).system("Be brief.")
                .addUserMessage("Hi").build();
        Message whole = client.messages().create(params);
        MessageAccumulator accumulator = MessageAccumulator.create();
        try (StreamResponse<RawMessageStreamEvent> stream = client.messages().createStreaming(params)) {
            stream.stream().forEach(accumulator::accumulate);
        }
        Message streamed = accumulator.message();
        for (Message message : List.of(whole, streamed)) {
            assertThat(message.content().getFirst().text().orElseThrow().text()).isEqualTo(EchoModel.ANSWER);
            assertThat(message.usage().outputTokens()).isEqualTo(EchoModel.ANSWER_TOKENS);
        }
        long counted = client.messages().countTokens(MessageCountTokensParams.builder().model("model-03")
                .system("Be brief.").addUserMessage("Hi").build()).inputTokens();
        assertThat(counted).isEqualTo(whole.usage().inputTokens());

        List<UsageRecord> records = records();
        assertThat(records).hasSize(3).allSatisfy(r -> {
            assertThat(r.endpoint()).isEqualTo("messages");
            assertThat(r.status()).isEqualTo(200);
        });
        assertThat(records).filteredOn(r -> r.completionTokens() == EchoModel.ANSWER_TOKENS)
                .hasSize(2).allSatisfy(r -> assertThat(r.promptTokens()).isEqualTo((int) whole.usage().inputTokens()));
    }

    @Test
    void theGatewaysOwnErrorsOnMessagesAreInAnthropicsShape() throws Exception {
        deploy(null);
        assertThatThrownBy(() -> anthropic("sk-wrong").messages().create(MessageCreateParams.builder().model("model-04")
                .maxTokens(10).addUserMessage("Hi").build())).isInstanceOf(UnauthorizedException.class);
        var unauthorized = post("/v1/messages?beta=true", "sk-wrong", "{\"model\":\"model-04\"}");
        assertThat(unauthorized.body()).startsWith("{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\"");

        workers.forEach(WorkerDeployment::close);
        var noWorker = post("/v1/messages", key, "{\"model\":\"model-04\",\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}");
        assertThat(noWorker.statusCode()).isEqualTo(503);
        assertThat(noWorker.headers().firstValue("retry-after")).isPresent();
        assertThat(noWorker.body()).startsWith("{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\"");
        assertThatThrownBy(() -> anthropic(key).messages().create(MessageCreateParams.builder().model("model-04")
                .maxTokens(10).addUserMessage("Hi").build())).isInstanceOf(AnthropicServiceException.class);
    }

    @Test
    void aMessagesStreamCutByItsWorkerEndsWithAnthropicsErrorEvent() throws Exception {
        List<String> events = cutStream("/v1/messages", "{\"model\":\"model-08\",\"stream\":true,\"max_tokens\":1000,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        assertThat(events.getLast()).startsWith("event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":");
        assertThat(events).noneMatch(e -> e.startsWith("event: message_stop"));
    }

    @Test
    void aResponsesStreamCutByItsWorkerEndsWithAnErrorEventAndNoCompletion() throws Exception {
        List<String> events = cutStream("/v1/responses", "{\"model\":\"model-08\",\"stream\":true,\"input\":\"hi\"}");
        assertThat(events.getLast()).startsWith("event: error\ndata: {\"type\":\"error\",\"code\":\"worker_failed\"")
                .contains("\"sequence_number\":" + (events.size() - 1));
        assertThat(events).noneMatch(e -> e.startsWith("event: response.completed"));
    }

    /** Starts a stream of a slow model, closes the worker serving it after a few events; the events the client got. */
    private List<String> cutStream(String path, String body) throws Exception {
        deploy(null);
        openers.forEach(o -> o.slow.add("model-08"));
        HttpResponse<java.io.InputStream> response = http.send(HttpRequest.newBuilder(URI.create(base() + path))
                .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                .header("anthropic-version", "2023-06-01")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofInputStream());
        assertThat(response.statusCode()).isEqualTo(200);
        var events = new ArrayList<String>();
        try (var reader = new java.io.BufferedReader(new java.io.InputStreamReader(response.body(),
                java.nio.charset.StandardCharsets.UTF_8))) {
            var event = new StringBuilder();
            String line;
            while ((line = reader.readLine()) != null) {
                if (!line.isEmpty()) {
                    event.append(line).append('\n');
                    continue;
                }
                events.add(event.toString().strip());
                event.setLength(0);
                if (events.size() == 4) workers.get(servingWorker("model-08")).close();
            }
        }
        assertThat(events).noneMatch(e -> e.contains("inferd-usage"));
        return events;
    }

    @Test
    void aWorkerNeverActsForAnAccountWithoutTheSecret() throws Exception {
        deploy(null);
        Response kept = openai(key).responses().create(ResponseCreateParams.builder().model("model-05").input("Hi").build());
        int port = workers.get(servingWorker("model-05")).port();
        for (String secret : new String[]{null, "not-the-secret-at-all"}) {
            var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/responses/" + kept.id()))
                    .header(WorkerProxy.ACCOUNT_HEADER, accountId);
            if (secret != null) request.header(WorkerProxy.SECRET_HEADER, secret);
            var answer = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            assertThat(answer.statusCode()).isEqualTo(401);
            assertThat(answer.body()).doesNotContain(kept.id());
        }
        // with the secret, the account's response is there; another account's is not
        var asAccount = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/responses/" + kept.id()))
                .header(WorkerProxy.SECRET_HEADER, SECRET).header(WorkerProxy.ACCOUNT_HEADER, accountId).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(asAccount.statusCode()).isEqualTo(200);
        var asAnother = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/responses/" + kept.id()))
                .header(WorkerProxy.SECRET_HEADER, SECRET).header(WorkerProxy.ACCOUNT_HEADER, "acct_other").build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(asAnother.statusCode()).isEqualTo(404);
    }

    @Test
    void anUploadBeyondTheLimitOrWithoutAModelIsRefusedAsCloudRefusesIt() throws Exception {
        deploy(null);
        byte[] big = new byte[26 * 1024 * 1024];
        var tooLarge = http.send(HttpRequest.newBuilder(URI.create(base() + "/v1/audio/transcriptions"))
                .header("Authorization", "Bearer " + key).header("Content-Type", MultipartForm.CONTENT_TYPE)
                .POST(HttpRequest.BodyPublishers.ofByteArray(big)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(tooLarge.statusCode()).isEqualTo(413);

        byte[] noModel = MultipartForm.body(Map.of("response_format", "text"), "clip.wav", "audio/wav", new byte[100]);
        var missing = http.send(HttpRequest.newBuilder(URI.create(base() + "/v1/audio/transcriptions"))
                .header("Authorization", "Bearer " + key).header("Content-Type", MultipartForm.CONTENT_TYPE)
                .POST(HttpRequest.BodyPublishers.ofByteArray(noModel)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(missing.statusCode()).isEqualTo(400);
        assertThat(missing.body()).contains("\"param\":\"model\"");
        assertThat(openers).allSatisfy(o -> assertThat(o.loads).isEmpty());
    }

    /** Slow: the random model fills its window with tokens. */
    @Test
    @Tag("slow")
    void aTranscriptionIsStreamedToAWorkerThatLoadsTheWhisperAndBilledBySecond(@TempDir Path tmp) throws Exception {
        Path clip = Fixtures.require("audio/LDC93S1.wav");
        var shape = new WhisperShape("whisper-micro", 51865, 64, 2, 1, 1, 80);
        Path file = new SyntheticWhisper.Spec(shape, GGMLType.F16, 3, 1.0f).write(tmp.resolve("micro.bin"));
        deploy(List.of(new ModelSpec("model-01", null, null), new ModelSpec("speech-micro", file.toString(), null)));

        var transcription = openai(key).audio().transcriptions().create(TranscriptionCreateParams.builder()
                .file(clip).model(AudioModel.of("speech-micro")).build());
        assertThat(transcription.asTranscription().text()).isNotNull();
        assertThat(openers.stream().mapToInt(o -> o.loads.size()).sum()).isEqualTo(1);

        // the model field after the file: the gateway reads up to it, then streams what follows
        byte[] wav = Files.readAllBytes(clip);
        byte[] fileFirst = fileThenModel(wav, "speech-micro");
        var translated = http.send(HttpRequest.newBuilder(URI.create(base() + "/v1/audio/translations"))
                .header("Authorization", "Bearer " + key).header("Content-Type", MultipartForm.CONTENT_TYPE)
                .POST(HttpRequest.BodyPublishers.ofByteArray(fileFirst)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(translated.statusCode()).as(translated.body()).isEqualTo(200);

        float[] samples = new AudioDecoder().decode(wav).samples();
        long billedMillis = (samples.length * 1000L + Audio.SAMPLE_RATE - 1) / Audio.SAMPLE_RATE;
        assertThat(records()).hasSize(2).allSatisfy(r -> {
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.model()).isEqualTo("speech-micro");
            assertThat(r.audioMillis()).isEqualTo(billedMillis);
        }).extracting(UsageRecord::endpoint).containsExactlyInAnyOrder("audio.transcriptions", "audio.translations");
    }

    private static String text(Response response) {
        var text = new StringBuilder();
        response.output().forEach(item -> item.message().ifPresent(m -> m.content()
                .forEach(c -> c.outputText().ifPresent(t -> text.append(t.text())))));
        return text.toString();
    }

    private static byte[] fileThenModel(byte[] wav, String model) {
        var body = new java.io.ByteArrayOutputStream();
        String b = MultipartForm.BOUNDARY;
        body.writeBytes(("--" + b + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"clip.wav\"\r\n"
                + "Content-Type: audio/wav\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
        body.writeBytes(wav);
        body.writeBytes(("\r\n--" + b + "\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\n" + model + "\r\n--" + b
                + "--\r\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return body.toByteArray();
    }

    private HttpResponse<String> post(String path, String secret, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base() + path))
                .header("Authorization", "Bearer " + secret).header("Content-Type", "application/json")
                .header("anthropic-version", "2023-06-01")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
