package dev.inferd.app.loadtest;

import java.util.List;

/** A fixed, varied set of prompts, so that runs are comparable and no two clients start alike. */
public final class BenchPrompts {

    public static final List<String> ALL = List.of(
            "Write a short story about a lighthouse keeper who finds a message in a bottle.",
            "Explain how a rainbow forms, step by step, for a curious ten-year-old.",
            "List five practical tips for keeping houseplants alive in winter.",
            "Describe the city of Lisbon at dawn in a few vivid sentences.",
            "What are the main differences between a list and a set in programming?",
            "Summarize the plot of a heist movie you invent, in one paragraph.",
            "Give me a simple recipe for tomato soup with common ingredients.",
            "Why do cats purr? Answer briefly and mention what is still unknown.");

    private BenchPrompts() {
    }

    /** The prompt of request {@code request} of client {@code client}. */
    public static String of(int client, int request) {
        return ALL.get(Math.floorMod(client * 3 + request, ALL.size()));
    }
}
