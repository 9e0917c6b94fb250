package dev.inferd.engine.chat.output;

final class Markers {
    private Markers() {
    }

    /** Whether {@code text} is the beginning of {@code marker} (or all of it). */
    static boolean isPrefix(CharSequence text, String marker) {
        if (text.length() > marker.length()) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) != marker.charAt(i)) {
                return false;
            }
        }
        return true;
    }
}
