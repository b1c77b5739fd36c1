package org.aspectj.lang.reflect;

import java.lang.reflect.Field;

/** The signature of a field (field get and set join points). */
public interface FieldSignature extends MemberSignature {
    /** The field's type, loaded on demand. */
    @SuppressWarnings("rawtypes")
    Class getFieldType();

    /**
     * The field, looked up in the declaring type and then its supertypes;
     * {@code null} if it cannot be found.
     */
    Field getField();
}
