package dev.inferd.server.cloud.dashboard;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;

import static dev.inferd.server.cloud.dashboard.Html.escape;

/**
 * A bar chart per day drawn on the server as inline SVG: no script, nothing fetched, so the dashboard's
 * Content-Security-Policy stays strict. Several series stack in each day's bar; every segment carries its exact
 * value in a {@code <title>} (a tooltip), and a legend names the series.
 */
final class SvgChart {

    /** One stacked series: a name for the legend, a fill colour, and one value per day. */
    record Series(String name, String color, List<BigDecimal> values) {
    }

    /** Fill colours with at least 3:1 contrast against the white page, told apart by hue. */
    static final List<String> PALETTE = List.of("#2448c8", "#c25e00", "#1f7a3a", "#b00020", "#6a35a0", "#00707a",
            "#7a6000", "#b0185a");

    private static final int WIDTH = 760;
    private static final int PLOT_HEIGHT = 140;
    private static final int LEFT = 64;
    private static final int TOP = 12;

    private SvgChart() {
    }

    /**
     * @param id    the svg element's id
     * @param label what is counted, for the accessible name and tooltips ("requests", "USD")
     * @param days  the x axis: one label (yyyy-mm-dd) per day
     */
    static String render(String id, String label, List<String> days, List<Series> series) {
        BigDecimal max = BigDecimal.ZERO;
        for (int d = 0; d < days.size(); d++) {
            BigDecimal sum = BigDecimal.ZERO;
            for (Series s : series) sum = sum.add(s.values().get(d));
            max = max.max(sum);
        }
        int plotWidth = WIDTH - LEFT - 8;
        double slot = (double) plotWidth / Math.max(1, days.size());
        double barWidth = Math.max(1, slot * 0.8);
        int legendRows = (series.size() + 3) / 4;
        int height = TOP + PLOT_HEIGHT + 24 + legendRows * 18;
        var svg = new StringBuilder("<svg id=\"").append(escape(id)).append("\" class=\"chart\" role=\"img\" aria-label=\"")
                .append(escape(label)).append(" per day\" width=\"").append(WIDTH).append("\" height=\"").append(height)
                .append("\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(height)
                .append("\" xmlns=\"http://www.w3.org/2000/svg\" font-family=\"system-ui,sans-serif\" font-size=\"11\">");
        int baseline = TOP + PLOT_HEIGHT;
        svg.append("<line x1=\"").append(LEFT).append("\" y1=\"").append(baseline).append("\" x2=\"").append(WIDTH - 8)
                .append("\" y2=\"").append(baseline).append("\" stroke=\"#555\"/>");
        svg.append("<text class=\"max\" x=\"").append(LEFT - 6).append("\" y=\"").append(TOP + 4)
                .append("\" text-anchor=\"end\" fill=\"#1d1d1f\">").append(escape(plain(max))).append("</text>")
                .append("<text x=\"").append(LEFT - 6).append("\" y=\"").append(baseline)
                .append("\" text-anchor=\"end\" fill=\"#1d1d1f\">0</text>");
        for (int d = 0; d < days.size(); d++) {
            double x = LEFT + d * slot + (slot - barWidth) / 2;
            double y = baseline;
            for (Series s : series) {
                BigDecimal value = s.values().get(d);
                if (value.signum() <= 0 || max.signum() == 0) continue;
                double h = Math.max(1, value.doubleValue() / max.doubleValue() * PLOT_HEIGHT);
                y -= h;
                svg.append("<rect class=\"bar\" data-day=\"").append(escape(days.get(d))).append("\" x=\"").append(round(x))
                        .append("\" y=\"").append(round(y)).append("\" width=\"").append(round(barWidth)).append("\" height=\"")
                        .append(round(h)).append("\" fill=\"").append(s.color()).append("\"><title>").append(escape(days.get(d)))
                        .append(' ').append(escape(s.name())).append(": ").append(escape(plain(value))).append(' ')
                        .append(escape(label)).append("</title></rect>");
            }
        }
        int every = Math.max(1, (int) Math.ceil(days.size() / 12.0));
        for (int d = 0; d < days.size(); d += every) {
            double x = LEFT + d * slot + slot / 2;
            svg.append("<text x=\"").append(round(x)).append("\" y=\"").append(baseline + 14)
                    .append("\" text-anchor=\"middle\" fill=\"#1d1d1f\">").append(escape(days.get(d).substring(5))).append("</text>");
        }
        for (int i = 0; i < series.size(); i++) {
            int x = LEFT + (i % 4) * 170;
            int y = baseline + 26 + (i / 4) * 18;
            svg.append("<rect x=\"").append(x).append("\" y=\"").append(y).append("\" width=\"10\" height=\"10\" fill=\"")
                    .append(series.get(i).color()).append("\"/><text class=\"legend\" x=\"").append(x + 14).append("\" y=\"")
                    .append(y + 9).append("\" fill=\"#1d1d1f\">").append(escape(cut(series.get(i).name()))).append("</text>");
        }
        return svg.append("</svg>").toString();
    }

    private static String plain(BigDecimal value) {
        BigDecimal v = value.scale() > 6 ? value.setScale(6, RoundingMode.HALF_UP) : value;
        return v.stripTrailingZeros().toPlainString();
    }

    private static String round(double v) {
        return String.format(java.util.Locale.ROOT, "%.1f", v);
    }

    private static String cut(String name) {
        return name.length() > 24 ? name.substring(0, 23) + "…" : name;
    }
}
