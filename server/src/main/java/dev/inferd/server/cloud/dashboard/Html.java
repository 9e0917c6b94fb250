package dev.inferd.server.cloud.dashboard;

/** Text made safe for HTML element content and quoted attribute values. */
final class Html {
    private Html() {
    }

    static String escape(Object value) {
        if (value == null) return "";
        String s = value.toString();
        var out = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }
}
