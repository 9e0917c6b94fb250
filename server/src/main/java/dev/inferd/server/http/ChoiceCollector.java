package dev.inferd.server.http;

import dev.inferd.engine.generate.GenerationResult;
import dev.inferd.engine.generate.TokenLogprob;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;

/** Gathers a whole run for a non-streamed response: text, log-probabilities and finish reason per choice. */
final class ChoiceCollector {

    private static final System.Logger LOG = System.getLogger(ChoiceCollector.class.getName());

    private final StringBuilder[] texts;
    private final List<List<TokenLogprob>> logprobs;
    private final String[] finishReasons;
    private GenerationResult result;

    private ChoiceCollector(int n) {
        texts = new StringBuilder[n];
        logprobs = new ArrayList<>(n);
        finishReasons = new String[n];
        for (int i = 0; i < n; i++) {
            texts[i] = new StringBuilder();
            logprobs.add(new ArrayList<>());
        }
    }

    /**
     * Reads the run to its end. An engine failure is rethrown (nothing was sent yet, so it becomes a
     * 500, or a 429 for a busy engine); a client that leaves meanwhile stops the engine.
     */
    static ChoiceCollector drain(GenerationRun run, int n, ClientWatch client) throws InterruptedException {
        ChoiceCollector c = new ChoiceCollector(n);
        while (true) {
            switch (run.takeWatching(client)) {
                case GenerationRun.Text t -> {
                    c.texts[t.choice()].append(t.text());
                    c.logprobs.get(t.choice()).addAll(t.logprobs());
                }
                case GenerationRun.Finish f -> c.finishReasons[f.choice()] = f.reason().wireName();
                case GenerationRun.Done d -> {
                    c.result = d.result();
                    return c;
                }
                case GenerationRun.Failed f -> throw GenerationRun.failure(f.error());
            }
        }
    }

    String text(int choice) {
        return texts[choice].toString();
    }

    List<TokenLogprob> logprobs(int choice) {
        return logprobs.get(choice);
    }

    String finishReason(int choice) {
        if (finishReasons[choice] == null) {
            // An engine that returns without finishing a choice has a bug; the reply is still whole.
            LOG.log(Level.WARNING, "generation returned without finishing choice " + choice);
            return "stop";
        }
        return finishReasons[choice];
    }

    GenerationResult result() {
        return result;
    }
}
