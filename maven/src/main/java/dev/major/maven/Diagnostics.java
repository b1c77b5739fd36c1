package dev.major.maven;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.maven.plugin.logging.Log;

/**
 * What major printed, sorted for Maven's log: errors and warnings at a source position in the
 * compiler plugin's format {@code /path/File.aj:[line,column] message} (which IDEs link), other
 * warnings, and the summary.
 */
final class Diagnostics {
    /** An aspect error: {@code /path/Trace.aj:3:14: message} (major's own and javac's, mapped). */
    private static final Pattern AT_COLUMN = Pattern.compile("^(.+?\\.(?:aj|java)):(\\d+):(\\d+): (.+)$");

    /** A declare warning/error hit: {@code Main.java:12 [warning] message}. */
    private static final Pattern DECLARE = Pattern.compile("^(\\S+?):(\\d+) \\[(error|warning)\\] (.*)$");

    /** A label of a narrated error: {@code label at line 2, columns 62 to 73: text}. */
    private static final Pattern LABEL = Pattern.compile("^label at line \\d+, columns? [\\d to]+: (.+)$");

    /** Box drawing and markers before a message in major's report (× error, ⚠ warning). */
    private static final Pattern LEAD = Pattern.compile("^[\\s\u00d7\u2502\u26a0]*(?:Error: )?");

    /** The mark of a warning in major's report. */
    private static final char WARNING_MARK = '\u26a0';

    /** The mark of an error in major's report. */
    private static final char ERROR_MARK = '\u00d7';

    /** The left side of a box in major's report. */
    private static final char BOX_SIDE = '\u2502';

    /** A warning naming an aspect's line: {@code before advice in A (/path/A.aj:2) has not ...}. */
    private static final Pattern IN_ASPECT = Pattern.compile("^(.*?) \\((.+?\\.(?:aj|java)):(\\d+)\\)(.*)$");

    private enum Level {
        ERROR,
        WARNING,
        INFO
    }

    private static final class Line {
        final Level level;
        String text;

        Line(Level level, String text) {
            this.level = level;
            this.text = text;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Line && ((Line) o).level == level && ((Line) o).text.equals(text);
        }

        @Override
        public int hashCode() {
            return level.hashCode() * 31 + text.hashCode();
        }
    }

    private final Set<Line> lines = new LinkedHashSet<>();
    private final List<String> other = new ArrayList<>();
    private int errors;

    private Diagnostics() {}

    /**
     * Sorts major's {@code output}; {@code sources} are the files a declare hit's bare file name
     * ({@code Main.java}) is looked up among (an aspect's generated {@code Trace.java} is its
     * {@code Trace.aj}).
     */
    static Diagnostics parse(String output, List<Path> sources) {
        Diagnostics d = new Diagnostics();
        Line last = null;
        // The lead of a boxed message's wrapped lines: the lead of its first line with the
        // mark (× or ⚠) turned into the box's side.
        String wrapped = null;
        for (String raw : output.split("\r?\n")) {
            if (wrapped != null && last != null && raw.startsWith(wrapped) && raw.length() > wrapped.length()
                    && !Character.isWhitespace(raw.charAt(wrapped.length()))) {
                d.lines.remove(last);
                last.text = last.text + " " + raw.substring(wrapped.length()).trim();
                d.lines.add(last);
                continue;
            }
            wrapped = null;
            String text = LEAD.matcher(raw).replaceFirst("");
            Matcher m;
            if ((m = AT_COLUMN.matcher(text)).matches()) {
                Level level = raw.indexOf(WARNING_MARK) >= 0 ? Level.WARNING : Level.ERROR;
                last = d.add(level, m.group(1) + ":[" + m.group(2) + "," + m.group(3) + "] " + m.group(4));
                String lead = raw.substring(0, raw.length() - text.length());
                if (lead.indexOf(WARNING_MARK) >= 0 || lead.indexOf(ERROR_MARK) >= 0) {
                    wrapped = lead.replace(WARNING_MARK, BOX_SIDE).replace(ERROR_MARK, BOX_SIDE);
                }
            } else if ((m = DECLARE.matcher(text)).matches()) {
                Level level = m.group(3).equals("error") ? Level.ERROR : Level.WARNING;
                d.add(level, resolve(m.group(1), sources) + ":[" + m.group(2) + ",1] " + m.group(4));
                last = null;
            } else if ((m = LABEL.matcher(text)).matches() && last != null) {
                // The label says what is wrong at the position (javac's detail): keep it.
                d.lines.remove(last);
                last.text = last.text + " (" + m.group(1) + ")";
                d.lines.add(last);
            } else if (text.startsWith("warning: ")) {
                String w = text.substring("warning: ".length());
                Matcher at = IN_ASPECT.matcher(w);
                if (at.matches()) {
                    w = at.group(2) + ":[" + at.group(3) + ",1] " + at.group(1) + at.group(4);
                }
                // An @Aspect class of the sources is compiled by javac too; major's class replaces it.
                d.add(w.endsWith("replaced by the aspect class major compiled") ? Level.INFO : Level.WARNING, w);
            } else if (text.startsWith("woven ") || text.startsWith("note: ")) {
                d.add(Level.INFO, text);
            } else if (!raw.isBlank()) {
                d.other.add(raw);
            }
        }
        for (Line l : d.lines) {
            if (l.level == Level.ERROR) {
                d.errors++;
            }
        }
        return d;
    }

    private Line add(Level level, String text) {
        Line l = new Line(level, text);
        lines.add(l);
        return l;
    }

    /** The path of the source file named {@code name}, if exactly one has that name. */
    private static String resolve(String name, List<Path> sources) {
        List<Path> found = named(name, sources);
        if (found.isEmpty() && name.endsWith(".java")) {
            found = named(name.substring(0, name.length() - ".java".length()) + ".aj", sources);
        }
        return found.size() == 1 ? found.get(0).toString() : name;
    }

    private static List<Path> named(String name, List<Path> sources) {
        List<Path> found = new ArrayList<>();
        for (Path p : sources) {
            if (p.getFileName().toString().equals(name) && !found.contains(p)) {
                found.add(p);
            }
        }
        return found;
    }

    /** How many errors major reported at a source position. */
    int errorCount() {
        return errors;
    }

    /**
     * Logs everything: errors, warnings and the summary at their levels; the rest of major's
     * output at debug level, or as errors when the run failed without a positioned error.
     */
    void report(Log log, boolean succeeded) {
        for (Line l : lines) {
            switch (l.level) {
                case ERROR:
                    log.error(l.text);
                    break;
                case WARNING:
                    log.warn(l.text);
                    break;
                default:
                    log.info("major: " + l.text);
            }
        }
        for (String o : other) {
            if (!succeeded && errors == 0) {
                log.error(o);
            } else if (succeeded) {
                log.info(o);
            } else {
                log.debug(o);
            }
        }
    }
}
