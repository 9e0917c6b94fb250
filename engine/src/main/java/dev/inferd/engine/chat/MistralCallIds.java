package dev.inferd.engine.chat;

/**
 * Mistral's templates accept only 9-character alphanumeric tool call ids. Any other id maps to
 * such one, the same one every time, so a call and its result still match.
 */
final class MistralCallIds {
    private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

    private MistralCallIds() {
    }

    static String of(String id) {
        if (id.length() == 9 && id.chars().allMatch(MistralCallIds::alphanumeric)) {
            return id;
        }
        // The last 9 alphanumerics of an id like "call_abc123def456" keep its distinctive part; short ids hash.
        String body = id.startsWith("call_") ? id.substring(5) : id;
        var alnum = new StringBuilder();
        body.chars().filter(MistralCallIds::alphanumeric).forEach(c -> alnum.append((char) c));
        if (alnum.length() >= 9) {
            return alnum.substring(alnum.length() - 9);
        }
        long h = 1125899906842597L;
        for (int i = 0; i < id.length(); i++) {
            h = 31 * h + id.charAt(i);
        }
        var sb = new StringBuilder(9);
        for (int i = 0; i < 9; i++) {
            sb.append(ALPHABET.charAt((int) Math.floorMod(h, (long) ALPHABET.length())));
            h = Math.floorDiv(h, ALPHABET.length()) ^ (h * 6364136223846793005L);
        }
        return sb.toString();
    }

    private static boolean alphanumeric(int c) {
        return c < 128 && Character.isLetterOrDigit(c);
    }
}
