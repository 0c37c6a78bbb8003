"""SAML peers of the reference service, built on pysaml2 (and xmlsec1): a downstream service
provider that reads the service's IdP metadata, asks for a login and checks the answer, and an
upstream identity provider that signs responses for the service's SAML connection.

One JSON object per line in (stdin), one JSON object per line out (stdout): {"command": ..., ...};
one process serves a whole test file (pysaml2 takes a second to import).
"""

import base64
import json
import os
import shutil
import sys
import tempfile
from urllib.parse import parse_qs, urlparse

from saml2 import BINDING_HTTP_POST, BINDING_HTTP_REDIRECT
from saml2.client import Saml2Client
from saml2.config import IdPConfig, SPConfig
from saml2.saml import NAMEID_FORMAT_EMAILADDRESS, NameID
from saml2.server import Server

XMLSEC = shutil.which("xmlsec1") or "/usr/bin/xmlsec1"


def sp_client(args):
    return Saml2Client(
        config=SPConfig().load(
            {
                "entityid": args["sp_entity_id"],
                "xmlsec_binary": XMLSEC,
                "metadata": {"inline": [args["idp_metadata"]]},
                "allow_unknown_attributes": True,
                "service": {
                    "sp": {
                        "endpoints": {"assertion_consumer_service": [(args["acs_url"], BINDING_HTTP_POST)]},
                        "allow_unsolicited": args.get("allow_unsolicited", False),
                        "want_response_signed": False,
                        "want_assertions_signed": True,
                        "authn_requests_signed": False,
                    }
                },
            }
        )
    )


def sp_request(args):
    """An AuthnRequest to the IdP, by HTTP-Redirect (the URL to go to) or HTTP-POST (the form's field)."""
    client = sp_client(args)
    idp = args["idp_entity_id"]
    if args.get("binding") == "post":
        destination = client.metadata.single_sign_on_service(idp, BINDING_HTTP_POST)[0]["location"]
        request_id, request = client.create_authn_request(destination, binding=BINDING_HTTP_POST)
        return {"request_id": request_id, "destination": destination, "saml_request": base64.b64encode(str(request).encode()).decode()}
    request_id, info = client.prepare_for_authenticate(entityid=idp, relay_state=args.get("relay_state", ""), binding=BINDING_HTTP_REDIRECT)
    location = dict(info["headers"])["Location"]
    return {"request_id": request_id, "location": location, "saml_request": parse_qs(urlparse(location).query)["SAMLRequest"][0]}


def sp_verify(args):
    """Checks a posted SAMLResponse as the SP: signature by a key of the metadata, audience, recipient, InResponseTo, validity."""
    client = sp_client(args)
    outstanding = {args["request_id"]: "/"} if args.get("request_id") else {}
    try:
        response = client.parse_authn_request_response(args["saml_response"], BINDING_HTTP_POST, outstanding=outstanding)
    except Exception as error:  # the SP's refusal, whatever pysaml2 raised
        return {"error": f"{type(error).__name__}: {error}"}
    if response is None:
        return {"error": "no response"}
    name_id = response.assertion.subject.name_id
    return {"name_id": name_id.text, "name_id_format": name_id.format, "attributes": response.ava, "issuer": response.issuer()}


def idp_response(args):
    """A response the upstream IdP signs for the service's SAML connection (its SP metadata loaded)."""
    folder = tempfile.mkdtemp()
    try:
        key_file = os.path.join(folder, "key.pem")
        cert_file = os.path.join(folder, "cert.pem")
        with open(key_file, "w") as handle:
            handle.write(args["key_pem"])
        with open(cert_file, "w") as handle:
            handle.write(args["cert_pem"])
        server = Server(
            config=IdPConfig().load(
                {
                    "entityid": args["idp_entity_id"],
                    "xmlsec_binary": XMLSEC,
                    "key_file": key_file,
                    "cert_file": cert_file,
                    "metadata": {"inline": args["sp_metadata"]},
                    "service": {
                        "idp": {
                            "endpoints": {"single_sign_on_service": [(args["idp_entity_id"] + "/sso", BINDING_HTTP_REDIRECT)]},
                            "policy": {"default": {"lifetime": {"seconds": args.get("lifetime_seconds", 300)}, "attribute_restrictions": None}},
                        }
                    },
                }
            )
        )
        email = args["email"]
        response = server.create_authn_response(
            identity={"mail": [email], "givenName": [args.get("given_name", "Upstream")], "sn": [args.get("family_name", "User")]},
            in_response_to=args.get("in_response_to"),
            destination=args["acs_url"],
            sp_entity_id=args["sp_entity_id"],
            name_id=NameID(format=NAMEID_FORMAT_EMAILADDRESS, text=email),
            userid=email,
            authn={"class_ref": "urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport"},
            sign_response=args.get("sign_response", True),
            sign_assertion=args.get("sign_assertion", True),
        )
        return {"saml_response": base64.b64encode(str(response).encode()).decode()}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


COMMANDS = {"sp_request": sp_request, "sp_verify": sp_verify, "idp_response": idp_response}

if __name__ == "__main__":
    for line in sys.stdin:
        request = json.loads(line)
        try:
            answer = COMMANDS[request["command"]](request)
        except Exception as error:  # answered, so that the test names it and the next command still runs
            answer = {"error": f"{type(error).__name__}: {error}"}
        print(json.dumps(answer), flush=True)
