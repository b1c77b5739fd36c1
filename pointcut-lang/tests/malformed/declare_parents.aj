aspect Marking {
    declare parents: com.acme..* implements java.io.Serializable;
}
