package dev.inferd.server.http;

import dev.inferd.engine.generate.BusyException;
import dev.inferd.engine.generate.ChatMessage;
import dev.inferd.engine.generate.FinishReason;
import dev.inferd.engine.generate.Generation;
import dev.inferd.engine.generate.GenerationRequest;
import dev.inferd.engine.generate.GenerationResult;
import dev.inferd.engine.generate.ModelDescription;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.engine.generate.TokenLogprob;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A deterministic stand-in for the engine. Each choice "generates" a fixed text one word at a
 * time (a word is a token), choices take turns as a batching engine would interleave them, and
 * {@code maxTokens}, stop strings, {@code n} and log-probabilities are honoured. A prompt token is
 * one whitespace-separated word (plus one per chat message for the template, plus BOS).
 */
final class FakeTextGenerator implements TextGenerator {

    static final String TEXT = "Once upon a time, there was a tiny model that told short stories.";

    private final String id;
    private final int contextLength;
    private volatile String text = TEXT;
    private volatile long delayMillis;
    private volatile int failAfterTokens = -1;
    private volatile boolean chooseDifferentTexts;
    private volatile int busyRetryAfter = -1;
    private volatile String refusal;

    volatile GenerationRequest lastRequest;
    volatile List<ChatMessage> lastMessages;
    /** The last prompt rendered through the chat format (with tools, a prefill, template settings). */
    volatile String lastRendered;
    final CountDownLatch cancelSeen = new CountDownLatch(1);
    final AtomicInteger generateCalls = new AtomicInteger();

    FakeTextGenerator(String id, int contextLength) {
        this.id = id;
        this.contextLength = contextLength;
    }

    private volatile dev.inferd.engine.chat.ChatFormat chatFormat = dev.inferd.engine.chat.ChatFormat.of(null, "", "");

    /** Chat conventions from this template (e.g. one that thinks) instead of the plain format. */
    FakeTextGenerator template(String source) {
        this.chatFormat = dev.inferd.engine.chat.ChatFormat.of(source, "", "");
        return this;
    }

    @Override
    public dev.inferd.engine.chat.ChatFormat chatFormat() {
        return chatFormat;
    }

    FakeTextGenerator text(String text) {
        this.text = text;
        return this;
    }

    /** Sleeps this long before each generated token. */
    FakeTextGenerator delayMillis(long delay) {
        this.delayMillis = delay;
        return this;
    }

    /** Throws after this many tokens (0: at once). */
    FakeTextGenerator failAfterTokens(int tokens) {
        this.failAfterTokens = tokens;
        return this;
    }

    /** Refuses every generation as an engine with a full queue does. */
    FakeTextGenerator busy(int retryAfterSeconds) {
        this.busyRetryAfter = retryAfterSeconds;
        return this;
    }

    /** Refuses every generation as one the engine could never run, saying why. */
    FakeTextGenerator refuse(String why) {
        this.refusal = why;
        return this;
    }

    /** Choice i > 0 says "Choice i: " before the text, so choices can be told apart. */
    FakeTextGenerator differentTexts(boolean on) {
        this.chooseDifferentTexts = on;
        return this;
    }

    @Override
    public ModelDescription description() {
        return new ModelDescription(id, "inferd-tests", 1_700_000_000L, "llama", 260_000L, "F32", contextLength);
    }

    /** Token ids 0 to 31999, as a Llama 2 vocabulary. */
    @Override
    public int vocabularySize() {
        return 32_000;
    }

    @Override
    public int[] chatPrompt(List<ChatMessage> messages) {
        lastMessages = List.copyOf(messages);
        int count = 1;
        for (ChatMessage m : messages) {
            if (m.content().equals("<reject>")) throw new IllegalArgumentException("the template refuses this");
            count += 1 + words(m.content()).size();
        }
        return new int[count];
    }

    /** A conversation with tools, rendered by the plain chat format: one token per word, plus BOS. */
    @Override
    public int[] chatPrompt(dev.inferd.engine.chat.RenderedPrompt prompt) {
        lastRendered = prompt.text();
        return new int[1 + words(prompt.text()).size()];
    }

    @Override
    public int[] textPrompt(String prompt) {
        return new int[1 + words(prompt).size()];
    }

    static List<String> words(String s) {
        return s.isBlank() ? List.of() : List.of(s.trim().split("\\s+"));
    }

    /** The pieces (tokens) choice {@code choice} emits, spaces included. */
    List<String> pieces(int choice) {
        List<String> words = new ArrayList<>(words(text));
        if (chooseDifferentTexts && choice > 0) {
            words.addFirst(choice + ":");
            words.addFirst("Choice");
        }
        List<String> pieces = new ArrayList<>();
        for (int i = 0; i < words.size(); i++) pieces.add(i == 0 ? words.get(i) : " " + words.get(i));
        return pieces;
    }

    @Override
    public Generation submit(GenerationRequest request) {
        lastRequest = request;
        generateCalls.incrementAndGet();
        if (busyRetryAfter >= 0) throw new BusyException("queue is full (8 waiting)", busyRetryAfter);
        if (refusal != null) throw new IllegalArgumentException(refusal);
        var generation = new Generation();
        Thread.ofVirtual().name("fake-engine").start(() -> {
            try {
                generation.end(generate(request, generation));
            } catch (Throwable t) {
                generation.fail(t);
            }
        });
        return generation;
    }

    /** Runs the whole generation on the fake engine's thread, as the real one's scheduler thread would. */
    private GenerationResult generate(GenerationRequest request, Generation listener) {
        if (failAfterTokens == 0) throw new IllegalStateException("fake engine failure");
        int n = request.n();
        StringBuilder[] texts = new StringBuilder[n];
        boolean[] finished = new boolean[n];
        for (int c = 0; c < n; c++) texts[c] = new StringBuilder();
        int generated = 0;
        List<List<String>> piecesByChoice = new ArrayList<>(n);
        for (int c = 0; c < n; c++) piecesByChoice.add(pieces(c));
        for (int step = 0; ; step++) {
            boolean anyActive = false;
            for (int c = 0; c < n; c++) {
                if (finished[c]) continue;
                if (listener.isCancelled()) {
                    cancelSeen.countDown();
                    return new GenerationResult(request.prompt().length, generated);
                }
                List<String> pieces = piecesByChoice.get(c);
                if (step >= pieces.size()) {
                    finished[c] = true;
                    listener.finish(c, FinishReason.STOP);
                    continue;
                }
                if (step >= request.maxTokens()) {
                    finished[c] = true;
                    listener.finish(c, FinishReason.LENGTH);
                    continue;
                }
                sleep();
                if (failAfterTokens > 0 && generated >= failAfterTokens) {
                    throw new IllegalStateException("fake engine failure");
                }
                generated++;
                String piece = pieces.get(step);
                // Without stop strings the text so far is never looked at, which keeps long texts cheap.
                String before = request.stop().isEmpty() ? "" : texts[c].toString();
                String after = before + piece;
                int stopAt = request.stop().isEmpty() ? -1 : firstStop(after, request.stop());
                if (stopAt >= 0) {
                    String visible = after.substring(Math.min(before.length(), stopAt), stopAt);
                    if (!visible.isEmpty()) listener.text(c, visible, logprobs(request, step, visible));
                    finished[c] = true;
                    listener.finish(c, FinishReason.STOP, stopAt(after, stopAt, request.stop()));
                    continue;
                }
                if (!request.stop().isEmpty()) texts[c].append(piece);
                listener.text(c, piece, logprobs(request, step, piece));
                anyActive = true;
            }
            if (!anyActive && allTrue(finished)) break;
        }
        return new GenerationResult(request.prompt().length, generated);
    }

    private static int firstStop(String text, List<String> stops) {
        int best = -1;
        for (String s : stops) {
            int at = text.indexOf(s);
            if (at >= 0 && (best < 0 || at < best)) best = at;
        }
        return best;
    }

    /** Which of the stop strings matched at {@code at}. */
    private static String stopAt(String text, int at, List<String> stops) {
        return stops.stream().filter(s -> text.startsWith(s, at)).findFirst().orElseThrow();
    }

    private static boolean allTrue(boolean[] flags) {
        for (boolean f : flags) if (!f) return false;
        return true;
    }

    private static List<TokenLogprob> logprobs(GenerationRequest request, int step, String piece) {
        if (!request.wantsLogprobs()) return List.of();
        float logprob = 0f - 0.25f * (step % 4);
        List<TokenLogprob> top = new ArrayList<>();
        for (int k = 0; k < request.logprobs(); k++) {
            String alt = k == 0 ? piece : piece + "#" + k;
            top.add(new TokenLogprob(1000 + k, alt, alt.getBytes(StandardCharsets.UTF_8), logprob - k, List.of()));
        }
        return List.of(new TokenLogprob(step, piece, piece.getBytes(StandardCharsets.UTF_8), logprob, top));
    }

    private void sleep() {
        if (delayMillis <= 0) return;
        try {
            Thread.sleep(delayMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
