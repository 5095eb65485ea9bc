/// The AppConfig specfile XSD, identical to `Schemas/appconfig-specfile.xsd` (a test keeps them equal), built
/// into the binary so that no resource has to be found at run time. After editing the XSD, paste it here.
enum SpecfileXSD {
    static let text = #"""
        <?xml version="1.0" encoding="UTF-8"?>
        <!--
          The structure of an AppConfig community specfile, as mdmconf reads it (*Schemas and validation*).
          Values that need a friendlier message than an XSD error (version, bundleId, bounds, patterns, variable
          names) are typed as strings here and checked by mdmconf's own lint (MC3xxx).
        -->
        <xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" elementFormDefault="unqualified">

          <xs:element name="managedAppConfiguration">
            <xs:complexType>
              <xs:sequence>
                <xs:element name="version" type="xs:string"/>
                <xs:element name="bundleId" type="xs:string"/>
                <xs:element name="dict" type="Dict"/>
                <xs:element name="presentation" type="Presentation" minOccurs="0"/>
                <xs:element name="license" type="xs:anyType" minOccurs="0"/>
              </xs:sequence>
            </xs:complexType>
          </xs:element>

          <xs:complexType name="Dict">
            <xs:choice minOccurs="1" maxOccurs="unbounded">
              <xs:element name="string" type="Key"/>
              <xs:element name="stringArray" type="Key"/>
              <xs:element name="integer" type="Key"/>
              <xs:element name="integerArray" type="Key"/>
              <xs:element name="float" type="Key"/>
              <xs:element name="floatArray" type="Key"/>
              <xs:element name="date" type="Key"/>
              <xs:element name="boolean" type="Key"/>
            </xs:choice>
          </xs:complexType>

          <xs:complexType name="Key">
            <xs:sequence>
              <xs:element name="defaultValue" type="DefaultValue" minOccurs="0"/>
              <xs:element name="constraint" type="Constraint" minOccurs="0"/>
            </xs:sequence>
            <xs:attribute name="keyName" type="xs:string" use="required"/>
          </xs:complexType>

          <xs:complexType name="DefaultValue">
            <xs:choice minOccurs="0" maxOccurs="unbounded">
              <xs:element name="value" type="xs:string"/>
              <xs:element name="userVariable" type="Variable"/>
              <xs:element name="deviceVariable" type="Variable"/>
            </xs:choice>
          </xs:complexType>

          <xs:complexType name="Variable">
            <xs:attribute name="value" type="xs:string" use="required"/>
          </xs:complexType>

          <xs:complexType name="Constraint">
            <xs:sequence>
              <xs:element name="values" minOccurs="0">
                <xs:complexType>
                  <xs:sequence>
                    <xs:element name="value" type="xs:string" maxOccurs="unbounded"/>
                  </xs:sequence>
                </xs:complexType>
              </xs:element>
            </xs:sequence>
            <xs:attribute name="nullable" type="xs:boolean"/>
            <xs:attribute name="min" type="xs:string"/>
            <xs:attribute name="max" type="xs:string"/>
            <xs:attribute name="pattern" type="xs:string"/>
          </xs:complexType>

          <xs:complexType name="Presentation">
            <xs:choice minOccurs="0" maxOccurs="unbounded">
              <xs:element name="field" type="Field"/>
              <xs:element name="fieldGroup" type="FieldGroup"/>
            </xs:choice>
            <xs:attribute name="defaultLocale" type="xs:string"/>
          </xs:complexType>

          <xs:complexType name="FieldGroup">
            <xs:sequence>
              <xs:element name="name" type="Localized"/>
              <xs:element name="field" type="Field" maxOccurs="unbounded"/>
            </xs:sequence>
          </xs:complexType>

          <xs:complexType name="Field">
            <xs:sequence>
              <xs:element name="label" type="Localized" minOccurs="0"/>
              <xs:element name="description" type="Localized" minOccurs="0"/>
              <xs:element name="options" minOccurs="0">
                <xs:complexType>
                  <xs:sequence>
                    <xs:element name="option" type="Option" maxOccurs="unbounded"/>
                  </xs:sequence>
                </xs:complexType>
              </xs:element>
            </xs:sequence>
            <xs:attribute name="keyName" type="xs:string" use="required"/>
            <xs:attribute name="type" use="required">
              <xs:simpleType>
                <xs:restriction base="xs:string">
                  <xs:enumeration value="input"/>
                  <xs:enumeration value="select"/>
                  <xs:enumeration value="multiselect"/>
                  <xs:enumeration value="checkbox"/>
                  <xs:enumeration value="hidden"/>
                  <xs:enumeration value="datetime"/>
                  <xs:enumeration value="list"/>
                </xs:restriction>
              </xs:simpleType>
            </xs:attribute>
          </xs:complexType>

          <xs:complexType name="Localized">
            <xs:sequence>
              <xs:element name="language" type="Language" maxOccurs="unbounded"/>
            </xs:sequence>
          </xs:complexType>

          <xs:complexType name="Language">
            <xs:simpleContent>
              <xs:extension base="xs:string">
                <xs:attribute name="value" type="xs:string" use="required"/>
              </xs:extension>
            </xs:simpleContent>
          </xs:complexType>

          <xs:complexType name="Option">
            <xs:sequence>
              <xs:element name="language" type="Language" minOccurs="0" maxOccurs="unbounded"/>
            </xs:sequence>
            <xs:attribute name="value" type="xs:string" use="required"/>
            <xs:attribute name="selected" type="xs:boolean"/>
          </xs:complexType>
        </xs:schema>

        """#
}
