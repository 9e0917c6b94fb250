package dev.inferd.server.http;

import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.MultipartForm;
import dev.inferd.speech.audio.AudioDecoder;
import dev.inferd.speech.audio.Audio;
import dev.inferd.speech.audio.InvalidAudioException;
import dev.inferd.speech.format.ResponseFormat;
import dev.inferd.speech.format.TranscriptFormatter;
import dev.inferd.engine.generate.Generation;
import dev.inferd.speech.whisper.Languages;
import dev.inferd.speech.whisper.Transcript;
import dev.inferd.speech.whisper.TranscriptionOptions;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.concurrent.CancellationException;

/**
 * {@code POST /v1/audio/transcriptions} and {@code /v1/audio/translations}: a multipart upload of at
 * most 25 MB (413 from the Content-Length alone, or as soon as more arrives), decoded whatever its
 * container, transcribed by a served Whisper and written in the requested format.
 */
final class TranscriptionsEndpoint {
    /** OpenAI's limit: 25 MiB. */
    static final long MAX_UPLOAD_BYTES = 25L * 1024 * 1024;

    private final ModelRegistry chatModels;
    private final SpeechModels speechModels;
    private final AudioDecoder decoder = new AudioDecoder();

    TranscriptionsEndpoint(ModelRegistry chatModels, SpeechModels speechModels) {
        this.chatModels = chatModels;
        this.speechModels = speechModels;
    }

    void handle(ServerRequest request, ServerResponse response, ClientWatch watch, boolean translate) throws InterruptedException {
        String boundary = checkUpload(request);
        var form = MultipartForm.parse(readBody(request), boundary);

        String model = form.text("model").map(String::strip).filter(s -> !s.isEmpty()).orElseThrow(() -> ApiError.missing("model"));
        var file = form.part("file").orElseThrow(() -> ApiError.missing("file"));
        if (!speechModels.serves(model)) {
            if (isChatModel(model)) {
                throw ApiError.invalid("model", "The model `" + model + "` is a chat model, not a speech-to-text model.");
            }
            throw ApiError.modelNotFound(model);
        }
        RequestHook hook = RequestHook.of(request);
        hook.model(model);
        ResponseFormat format = form.text("response_format").map(String::strip).filter(s -> !s.isEmpty())
                .map(f -> ResponseFormat.parse(f).orElseThrow(() -> ApiError.invalid("response_format",
                        "Invalid value for 'response_format': '" + f + "'. Supported values are: " + ResponseFormat.known() + ".")))
                .orElse(ResponseFormat.JSON);
        float temperature = form.text("temperature").map(String::strip).filter(s -> !s.isEmpty()).map(TranscriptionsEndpoint::temperature).orElse(0f);
        String language = translate ? null : form.text("language").map(String::strip).filter(s -> !s.isEmpty()).orElse(null);
        if (language != null && Languages.byCode(language).isEmpty()) {
            throw ApiError.invalid("language", "Invalid value for 'language': '" + language + "' is not a supported ISO-639-1 language code.");
        }
        var granularities = EnumSet.noneOf(TranscriptFormatter.Granularity.class);
        for (String g : form.texts("timestamp_granularities")) {
            granularities.add(switch (g.strip()) {
                case "segment" -> TranscriptFormatter.Granularity.SEGMENT;
                case "word" -> TranscriptFormatter.Granularity.WORD;
                default -> throw ApiError.invalid("timestamp_granularities",
                        "Invalid value for 'timestamp_granularities': '" + g + "'. Supported values are: word, segment.");
            });
        }
        if (granularities.isEmpty()) granularities.add(TranscriptFormatter.Granularity.SEGMENT);
        boolean words = format == ResponseFormat.VERBOSE_JSON && granularities.contains(TranscriptFormatter.Granularity.WORD);
        String prompt = form.text("prompt").orElse(null);

        float[] samples;
        try {
            samples = decoder.decode(file.content()).samples();
        } catch (InvalidAudioException e) {
            throw ApiError.invalid("file", e.getMessage());
        }
        hook.audio((samples.length * 1000L + Audio.SAMPLE_RATE - 1) / Audio.SAMPLE_RATE); // billed by the second, rounded up
        var options = new TranscriptionOptions(language, translate, prompt, temperature, temperature == 0, true, true, 0, words);
        // the watch flags the client's departure on this token; the transcriber polls it between tokens
        var departure = new Generation();
        watch.cancelOnDeparture(departure);
        Transcript transcript;
        try {
            transcript = speechModels.withTurn(model, whisper -> {
                try {
                    return whisper.newTranscriber().transcribe(samples, options, departure::isCancelled);
                } catch (CancellationException e) {
                    throw new ClientGoneException(e);
                }
            });
        } finally {
            watch.close();
        }
        var task = translate ? TranscriptFormatter.Task.TRANSLATE : TranscriptFormatter.Task.TRANSCRIBE;
        var out = TranscriptFormatter.format(transcript, format, task, granularities);
        response.status(200);
        response.header("Content-Type", out.contentType());
        response.send(out.body().getBytes(StandardCharsets.UTF_8));
    }

    private boolean isChatModel(String id) {
        return chatModels.list().stream().anyMatch(m -> m.id().equals(id));
    }

    private static float temperature(String text) {
        float t;
        try {
            t = Float.parseFloat(text);
        } catch (NumberFormatException e) {
            throw ApiError.invalidType("temperature", "a number", "'" + text + "'");
        }
        if (!(t >= 0 && t <= 1)) throw ApiError.invalid("temperature", "Invalid value for 'temperature': " + text + " is not between 0 and 1.");
        return t;
    }

    /**
     * What is checked before the body is read (also by a gateway, which sends the body on to a worker): a multipart
     * body, declared no larger than the limit. Returns its boundary.
     */
    static String checkUpload(ServerRequest request) {
        String boundary = MultipartForm.boundary(request.header("Content-Type"));
        if (request.contentLength() > MAX_UPLOAD_BYTES) throw ApiError.payloadTooLarge(MAX_UPLOAD_BYTES);
        if (!request.hasBody()) throw ApiError.missing("file");
        return boundary;
    }

    /** The body, refused with 413 once it is known to be larger than the limit, before it is all read. */
    private static byte[] readBody(ServerRequest request) {
        try (InputStream in = request.body()) {
            byte[] body = in.readNBytes((int) MAX_UPLOAD_BYTES + 1);
            if (body.length > MAX_UPLOAD_BYTES) throw ApiError.payloadTooLarge(MAX_UPLOAD_BYTES);
            return body;
        } catch (IOException e) {
            throw ApiError.unreadableBody(e.getMessage());
        }
    }
}
