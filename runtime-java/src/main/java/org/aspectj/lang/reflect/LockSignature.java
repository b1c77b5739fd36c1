package org.aspectj.lang.reflect;

import org.aspectj.lang.Signature;

/** The signature of a monitor acquisition (lock join points). */
public interface LockSignature extends Signature {
}
