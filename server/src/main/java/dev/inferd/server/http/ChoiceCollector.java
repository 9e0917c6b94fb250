package dev.inferd.server.http;

import dev.inferd.engine.generate.FinishReason;
import dev.inferd.engine.generate.GenerationEvent;
import dev.inferd.engine.generate.GenerationResult;
import dev.inferd.engine.generate.TokenLogprob;
import dev.inferd.server.openai.FinishReasons;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;

/** Gathers a whole generation for a non-streamed response: text, log-probabilities and finish reason per choice. */
final class ChoiceCollector {

    private static final System.Logger LOG = System.getLogger(ChoiceCollector.class.getName());

    private final StringBuilder[] texts;
    private final List<List<TokenLogprob>> logprobs;
    private final FinishReason[] finishReasons;
    private final String[] stopSequences;
    private GenerationResult result;

    private ChoiceCollector(int n) {
        texts = new StringBuilder[n];
        logprobs = new ArrayList<>(n);
        finishReasons = new FinishReason[n];
        stopSequences = new String[n];
        for (int i = 0; i < n; i++) {
            texts[i] = new StringBuilder();
            logprobs.add(new ArrayList<>());
        }
    }

    /**
     * Reads the generation to its end. An engine failure is a {@link GenerationFailedException} (nothing
     * was sent yet, so it becomes a 500); a client that leaves meanwhile has its generation cancelled
     * by {@code client}, and is a {@link ClientGoneException} here.
     */
    static ChoiceCollector drain(MeteredGeneration generation, int n, ClientWatch client) throws InterruptedException {
        client.cancelOnDeparture(generation.generation());
        ChoiceCollector c = new ChoiceCollector(n);
        try {
            while (true) {
                switch (generation.next()) {
                    case GenerationEvent.Text t -> {
                        c.texts[t.choice()].append(t.text());
                        c.logprobs.get(t.choice()).addAll(t.tokens());
                    }
                    case GenerationEvent.Finish f -> {
                        c.finishReasons[f.choice()] = f.reason();
                        c.stopSequences[f.choice()] = f.stopSequence();
                    }
                    case GenerationEvent.End e -> {
                        if (client.isGone()) throw new ClientGoneException(null);
                        c.result = e.result();
                        return c;
                    }
                }
            }
        } catch (InterruptedException e) {
            generation.cancelAndAwait();
            throw e;
        }
    }

    String text(int choice) {
        return texts[choice].toString();
    }

    List<TokenLogprob> logprobs(int choice) {
        return logprobs.get(choice);
    }

    String finishReason(int choice) {
        return FinishReasons.wireName(reason(choice));
    }

    /** The stop sequence that ended the choice, or null. */
    String stopSequence(int choice) {
        return stopSequences[choice];
    }

    FinishReason reason(int choice) {
        if (finishReasons[choice] == null) {
            // An engine that ends without finishing a choice has a bug; the reply is still whole.
            LOG.log(Level.WARNING, "generation ended without finishing choice " + choice);
            return FinishReason.STOP;
        }
        return finishReasons[choice];
    }

    GenerationResult result() {
        return result;
    }
}
