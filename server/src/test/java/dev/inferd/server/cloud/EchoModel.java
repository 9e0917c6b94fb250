package dev.inferd.server.cloud;

import dev.inferd.engine.generate.ChatMessage;
import dev.inferd.engine.generate.FinishReason;
import dev.inferd.engine.generate.Generation;
import dev.inferd.engine.generate.GenerationRequest;
import dev.inferd.engine.generate.GenerationResult;
import dev.inferd.engine.generate.ModelDescription;
import dev.inferd.engine.generate.TextGenerator;

import java.util.List;

/**
 * A model with known token counts: a prompt token per whitespace-separated word, plus one per chat message and
 * one to begin; it answers "Hello there friend" (three tokens) to everything.
 */
final class EchoModel implements TextGenerator {

    static final String ANSWER = "Hello there friend";
    static final int ANSWER_TOKENS = 3;

    private final String id;
    private final long delayMillis;
    volatile boolean closed;
    /** How many generations began, and what each one that ended (finished or cancelled) generated. */
    final java.util.concurrent.atomic.AtomicInteger started = new java.util.concurrent.atomic.AtomicInteger();
    final java.util.concurrent.BlockingQueue<GenerationResult> ended = new java.util.concurrent.LinkedBlockingQueue<>();

    EchoModel(String id) {
        this(id, 0);
    }

    /** A model that takes {@code delayMillis} per token and answers at length, to be cancelled midway. */
    EchoModel(String id, long delayMillis) {
        this.id = id;
        this.delayMillis = delayMillis;
    }

    @Override
    public ModelDescription description() {
        return new ModelDescription(id, "inferd-tests", 1_700_000_000L, "llama", 1_000L, "F32", 4096);
    }

    @Override
    public int[] chatPrompt(List<ChatMessage> messages) {
        int count = 1;
        for (ChatMessage m : messages) count += 1 + words(m.content());
        return new int[count];
    }

    /** A conversation rendered through the chat format (the Messages API's, say): a token per word and one to begin. */
    @Override
    public int[] chatPrompt(dev.inferd.engine.chat.RenderedPrompt prompt) {
        return new int[1 + words(prompt.text())];
    }

    @Override
    public int[] textPrompt(String prompt) {
        return new int[1 + words(prompt)];
    }

    @Override
    public Generation submit(GenerationRequest request) {
        var generation = new Generation();
        Thread.ofVirtual().name("echo-engine").start(() -> {
            try {
                started.incrementAndGet();
                GenerationResult result = generate(request, generation);
                ended.add(result);
                generation.end(result);
            } catch (Throwable t) {
                generation.fail(t);
            }
        });
        return generation;
    }

    @Override
    public void close() {
        closed = true;
    }

    private GenerationResult generate(GenerationRequest request, Generation listener) {
        String[] pieces = delayMillis > 0 ? " la".repeat(1000).substring(1).split("(?= )") : new String[]{"Hello", " there", " friend"};
        int generated = 0;
        for (int c = 0; c < request.n(); c++) {
            for (int i = 0; i < pieces.length && i < request.maxTokens(); i++) {
                if (listener.isCancelled()) return new GenerationResult(request.prompt().length, generated);
                sleep();
                listener.text(c, pieces[i], List.of());
                generated++;
            }
            listener.finish(c, generated >= pieces.length * (c + 1) ? FinishReason.STOP : FinishReason.LENGTH);
        }
        return new GenerationResult(request.prompt().length, generated);
    }

    private void sleep() {
        if (delayMillis <= 0) return;
        try {
            Thread.sleep(delayMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static int words(String s) {
        return s.isBlank() ? 0 : s.trim().split("\\s+").length;
    }
}
