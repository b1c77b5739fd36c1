package major.runtime;

import org.aspectj.lang.reflect.SourceLocation;

/** A source location: {@code File.java:12}. */
final class SourceLocationImpl implements SourceLocation {
    private final Class<?> withinType;
    private final String fileName;
    private final int line;

    SourceLocationImpl(Class<?> withinType, String fileName, int line) {
        this.withinType = withinType;
        this.fileName = fileName;
        this.line = line;
    }

    @Override
    @SuppressWarnings("rawtypes")
    public Class getWithinType() {
        return withinType;
    }

    @Override
    public String getFileName() {
        return fileName;
    }

    @Override
    public int getLine() {
        return line;
    }

    @Override
    @Deprecated
    public int getColumn() {
        return -1;
    }

    @Override
    public String toString() {
        return fileName + ":" + line;
    }
}
