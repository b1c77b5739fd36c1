package major.runtime;

import org.aspectj.lang.reflect.CatchClauseSignature;

/** The signature of a catch clause: {@code catch(IOException)}. */
final class CatchClauseSignatureImpl extends SignatureImpl implements CatchClauseSignature {
    private final String exceptionTypeName;
    private final String parameterName;
    private volatile Class<?> parameterType;

    CatchClauseSignatureImpl(String declaringType, String exceptionType, String parameterName, ClassLoader loader) {
        super(0, "catch", declaringType, loader);
        this.exceptionTypeName = Names.binary(exceptionType);
        this.parameterName = parameterName;
    }

    @Override
    void render(StringBuilder b, int form) {
        b.append("catch(");
        Names.append(b, exceptionTypeName, form == LONG);
        b.append(')');
    }

    @Override
    @SuppressWarnings("rawtypes")
    public Class getParameterType() {
        Class<?> c = parameterType;
        if (c == null) {
            c = load(exceptionTypeName);
            parameterType = c;
        }
        return c;
    }

    @Override
    public String getParameterName() {
        return parameterName;
    }
}
