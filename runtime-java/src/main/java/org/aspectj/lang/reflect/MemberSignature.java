package org.aspectj.lang.reflect;

import org.aspectj.lang.Signature;

/** The signature of a class member: method, constructor, field, initializer or advice. */
public interface MemberSignature extends Signature {
}
