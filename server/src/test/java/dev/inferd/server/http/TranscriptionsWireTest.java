package dev.inferd.server.http;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.models.audio.AudioResponseFormat;
import com.openai.models.audio.transcriptions.TranscriptionCreateParams;
import dev.inferd.engine.Fixtures;
import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.speech.whisper.SyntheticWhisper;
import dev.inferd.speech.whisper.WhisperModel;
import dev.inferd.speech.whisper.WhisperShape;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The audio endpoints over real HTTP, with a synthetic Whisper beside a fake chat model. */
class TranscriptionsWireTest {
    static final String SPEECH = "speech-micro";

    @TempDir
    static Path tmp;
    static WhisperModel whisper;
    static InferdServer server;
    static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void start() throws IOException {
        var shape = new WhisperShape("whisper-micro", 51865, 64, 2, 1, 1, 80);
        whisper = WhisperModel.open(new SyntheticWhisper.Spec(shape, GGMLType.F16, 3, 1.0f).write(tmp.resolve("micro.bin")));
        var chat = new ModelRegistry();
        chat.ready(TestServer.MODEL, new FakeTextGenerator(TestServer.MODEL, 64));
        var speech = new SpeechModels();
        speech.ready(SPEECH, whisper);
        server = InferdServer.start("127.0.0.1", 0, chat, speech, ServerOptions.defaults());
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
        if (whisper != null) whisper.close();
    }

    @Test
    void theModelListHasTheSpeechModelBesideTheChatModel() throws Exception {
        var r = http.send(HttpRequest.newBuilder(URI.create(base() + "/v1/models")).GET().build(), HttpResponse.BodyHandlers.ofString());
        var ids = TestServer.json(r).get("data").findValuesAsText("id");
        assertThat(ids).containsExactly(TestServer.MODEL, SPEECH);
    }

    @Test
    void modelsThatAreNotSpeechModelsAreRefused() throws Exception {
        byte[] wav = Files.readAllBytes(Fixtures.require("audio/LDC93S1.wav"));
        var notServed = upload("/v1/audio/transcriptions", Map.of("model", "whisper-1"), wav);
        assertThat(notServed.statusCode()).isEqualTo(404);
        assertThat(TestServer.json(notServed).at("/error/message").asText()).contains("`whisper-1` does not exist");
        var chat = upload("/v1/audio/transcriptions", Map.of("model", TestServer.MODEL), wav);
        assertThat(chat.statusCode()).isEqualTo(400);
        assertThat(TestServer.json(chat).at("/error/param").asText()).isEqualTo("model");
    }

    @Test
    void aTextFileNamedMp3Is400() throws Exception {
        byte[] text = "not audio at all, just a note\n".repeat(20).getBytes(StandardCharsets.UTF_8);
        var r = upload("/v1/audio/transcriptions", Map.of("model", SPEECH), text);
        assertThat(r.statusCode()).isEqualTo(400);
        var error = TestServer.json(r).get("error");
        assertThat(error.get("param").asText()).isEqualTo("file");
        assertThat(error.get("message").asText()).contains("could not be decoded");
        assertThat(error.get("code").asInt()).isEqualTo(400);
    }

    @Test
    void badFieldsAre400WithTheirNames() throws Exception {
        byte[] wav = Files.readAllBytes(Fixtures.require("audio/LDC93S1.wav"));
        assertParam(upload("/v1/audio/transcriptions", Map.of("model", SPEECH, "response_format", "diarized_json"), wav), "response_format");
        assertParam(upload("/v1/audio/transcriptions", Map.of("model", SPEECH, "temperature", "1.5"), wav), "temperature");
        assertParam(upload("/v1/audio/transcriptions", Map.of("model", SPEECH, "language", "xx"), wav), "language");
        assertParam(upload("/v1/audio/transcriptions", Map.of("model", SPEECH), null), "file");
    }

    @Test
    void anUploadOver25MegabytesIs413() throws Exception {
        byte[] big = new byte[26 * 1024 * 1024];
        var r = upload("/v1/audio/transcriptions", Map.of("model", SPEECH), big);
        assertThat(r.statusCode()).isEqualTo(413);
        assertThat(TestServer.json(r).at("/error/code").asInt()).isEqualTo(413);
    }

    /** Slow: the random model fills its window with 220 tokens. */
    @Test
    @Tag("slow")
    void theOpenAiClientGetsEveryFormat() throws Exception {
        Path clip = Fixtures.require("audio/LDC93S1.wav");
        OpenAIClient client = OpenAIOkHttpClient.builder().baseUrl(base() + "/v1").apiKey("sk-local").build();
        var json = client.audio().transcriptions().create(TranscriptionCreateParams.builder().file(clip).model(SPEECH).build());
        assertThat(json.asTranscription().text()).isNotBlank();
        var verbose = client.audio().transcriptions().create(TranscriptionCreateParams.builder().file(clip).model(SPEECH)
                .responseFormat(AudioResponseFormat.VERBOSE_JSON).build());
        assertThat(verbose.isVerbose()).isTrue();
        assertThat(verbose.asVerbose().segments().orElseThrow()).isNotEmpty();
        assertThat(verbose.asVerbose().duration()).isEqualTo(46797 / 16000.0);
        assertThat(verbose.asVerbose().words()).isEmpty();
        var words = client.audio().transcriptions().create(TranscriptionCreateParams.builder().file(clip).model(SPEECH)
                .responseFormat(AudioResponseFormat.VERBOSE_JSON)
                .timestampGranularities(List.of(TranscriptionCreateParams.TimestampGranularity.WORD,
                        TranscriptionCreateParams.TimestampGranularity.SEGMENT)).build()).asVerbose();
        assertThat(words.words().orElseThrow()).isNotEmpty().allSatisfy(w -> {
            assertThat(w.start()).isBetween(0.0, words.duration());
            assertThat(w.end()).isBetween(w.start(), words.duration());
        });
        assertThat(words.segments().orElseThrow()).isNotEmpty();
        byte[] wav = Files.readAllBytes(clip);
        var srt = upload("/v1/audio/transcriptions", Map.of("model", SPEECH, "response_format", "srt"), wav);
        assertThat(srt.headers().firstValue("content-type").orElseThrow()).startsWith("application/x-subrip");
        assertThat(srt.body()).startsWith("1\n00:00:0");
        var vtt = upload("/v1/audio/translations", Map.of("model", SPEECH, "response_format", "vtt"), wav);
        assertThat(vtt.body()).startsWith("WEBVTT\n\n00:00:0");
    }

    private static void assertParam(HttpResponse<String> r, String param) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        assertThat(TestServer.json(r).at("/error/param").asText()).isEqualTo(param);
    }

    private static String base() {
        return "http://127.0.0.1:" + server.port();
    }

    private static HttpResponse<String> upload(String path, Map<String, String> fields, byte[] file) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base() + path)).timeout(Duration.ofMinutes(10))
                        .header("Content-Type", MultipartForm.CONTENT_TYPE)
                        .POST(HttpRequest.BodyPublishers.ofByteArray(MultipartForm.body(fields, "clip.mp3", "audio/mpeg", file))).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
