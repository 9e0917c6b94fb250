package dev.inferd.app.models;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** Slugs a user probably meant: same text in another case, a shared prefix or substring, or a few typos away. */
final class CloseMatches {
    private CloseMatches() {
    }

    static List<String> among(String query, Collection<String> candidates, int limit) {
        String q = query.toLowerCase(Locale.ROOT);
        record Scored(String slug, int score) { }
        return candidates.stream()
                .map(c -> new Scored(c, score(q, c.toLowerCase(Locale.ROOT))))
                .filter(s -> s.score() < Integer.MAX_VALUE)
                .sorted(Comparator.comparingInt(Scored::score).thenComparing(Scored::slug))
                .limit(limit)
                .map(Scored::slug)
                .toList();
    }

    /** Lower is closer; MAX_VALUE means not close at all. */
    private static int score(String query, String candidate) {
        if (query.isEmpty()) {
            return Integer.MAX_VALUE;
        }
        if (candidate.equals(query)) {
            return 0;
        }
        int distance = levenshtein(query, candidate);
        if (distance <= Math.max(2, query.length() / 3)) {
            return distance;
        }
        if (query.length() >= 3 && (candidate.startsWith(query) || candidate.contains(query))) {
            // Ranks after near-typos, and shorter candidates (more specific matches) first.
            return 100 + candidate.length() - query.length();
        }
        return Integer.MAX_VALUE;
    }

    static int levenshtein(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
            }
            int[] t = previous;
            previous = current;
            current = t;
        }
        return previous[b.length()];
    }
}
