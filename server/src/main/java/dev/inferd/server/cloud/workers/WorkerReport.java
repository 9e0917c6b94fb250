package dev.inferd.server.cloud.workers;

import java.util.Optional;

/**
 * What a worker's handler reported of one request, exactly as {@code cloud}'s meter would have collected it (tokens
 * of every generation, milliseconds of audio), handed back to the gateway that meters the request. The worker sends
 * it at its response's barrier, before the answer's final bytes: in the {@value #HEADER} header when nothing was sent
 * yet, else in the body as one line {@value #LINE_PREFIX}{@code ...}, an SSE comment event in a stream or within
 * the leading whitespace of a JSON body. The gateway takes it out before the client sees the answer; only workers,
 * which gateways reach with the shared secret, can send it.
 */
public record WorkerReport(int promptTokens, int completionTokens, int cachedTokens, long audioMillis, boolean cancelled) {

    public static final String HEADER = "x-inferd-usage";
    public static final String LINE_PREFIX = ": inferd-usage ";

    /** {@code p=12;c=40;k=0;a=0;x=0}: prompt, completion and cached tokens, audio milliseconds, cancelled. */
    public String encode() {
        return "p=" + promptTokens + ";c=" + completionTokens + ";k=" + cachedTokens + ";a=" + audioMillis
                + ";x=" + (cancelled ? 1 : 0);
    }

    /** The report in {@code text}, or empty when it is not one. */
    public static Optional<WorkerReport> parse(String text) {
        if (text == null) return Optional.empty();
        long p = -1, c = -1, k = -1, a = -1, x = -1;
        for (String field : text.strip().split(";")) {
            int eq = field.indexOf('=');
            if (eq < 0) return Optional.empty();
            long value;
            try {
                value = Long.parseLong(field.substring(eq + 1));
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
            if (value < 0) return Optional.empty();
            switch (field.substring(0, eq)) {
                case "p" -> p = value;
                case "c" -> c = value;
                case "k" -> k = value;
                case "a" -> a = value;
                case "x" -> x = value;
                default -> {
                    // a field a newer worker adds: ignored
                }
            }
        }
        if (p < 0 || c < 0 || k < 0 || a < 0 || x < 0 || p > Integer.MAX_VALUE || c > Integer.MAX_VALUE
                || k > Integer.MAX_VALUE) {
            return Optional.empty();
        }
        return Optional.of(new WorkerReport((int) p, (int) c, (int) k, a, x == 1));
    }
}
