package org.aspectj.lang.reflect;

import org.aspectj.lang.Signature;

/** The signature of a monitor release (unlock join points). */
public interface UnlockSignature extends Signature {
}
