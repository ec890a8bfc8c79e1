#!/usr/bin/env bash
# A real mail server on loopback for the RFQ mail tests (test/stack/rfq-mail-server.test.ts): Debian's postfix takes
# mail on 127.0.0.1:25 and delivers the reply domain to a Maildir, Debian's dovecot serves that Maildir over IMAP on
# 127.0.0.1:143 to one test user with a plaintext password (loopback only). Every other domain is relayed to the
# simulated suppliers' SMTP desk on 127.0.0.1:$SUPPLIER_PORT, so nothing leaves the machine.
#
# Runs again safely: it installs what is missing, rewrites its configuration and starts or reloads each server.
# Progress goes to stderr; stdout is only the `export` lines for the tests, so callers `eval "$(.ci/mail-server.sh)"`.
set -euo pipefail

DOMAIN=procura.test
MAILBOX=rfq
PASSWORD=procura-test-mailbox
SUPPLIER_PORT=2526
VHOSTS=/var/mail/vhosts
POSTFIX_LOG=/var/log/procura-postfix.log
DOVECOT_CONF=/etc/dovecot/procura-test.conf

say() { echo "mail-server: $*" >&2; }

if ! command -v postfix >/dev/null || [ ! -x /usr/sbin/dovecot ] || [ ! -e /usr/lib/dovecot/imap ]; then
  say "installing postfix and dovecot-imapd"
  # "Local only": the package's own configuration accepts nothing from outside; the settings below open loopback.
  debconf-set-selections <<EOF
postfix postfix/main_mailer_type select Local only
postfix postfix/mailname string mail.$DOMAIN
EOF
  apt-get update -qq >&2
  # No service is started by the packages' scripts here (no systemd); this script starts them below.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postfix dovecot-imapd >&2
fi

# One system user owns the mailboxes: postfix delivers as it, dovecot reads as it.
id vmail >/dev/null 2>&1 || useradd --system --home-dir "$VHOSTS" --shell /usr/sbin/nologin vmail
VUID=$(id -u vmail)
VGID=$(id -g vmail)
install -d -o vmail -g vmail -m 0750 "$VHOSTS" "$VHOSTS/$DOMAIN"

# postfix: loopback only; the reply domain (rfq+<token>@procura.test) into rfq's Maildir; everything else to the
# simulated suppliers; its own log file (no syslog here) where each accepted message's Message-ID is written.
echo "$MAILBOX@$DOMAIN $DOMAIN/$MAILBOX/" >/etc/postfix/procura-mailboxes
postconf -e \
  "compatibility_level = 3.6" \
  "myhostname = mail.$DOMAIN" \
  "mydestination = localhost" \
  "inet_interfaces = loopback-only" \
  "inet_protocols = ipv4" \
  "mynetworks = 127.0.0.0/8" \
  "smtpd_relay_restrictions = permit_mynetworks, reject_unauth_destination" \
  "recipient_delimiter = +" \
  "virtual_mailbox_domains = $DOMAIN" \
  "virtual_mailbox_base = $VHOSTS" \
  "virtual_mailbox_maps = texthash:/etc/postfix/procura-mailboxes" \
  "virtual_uid_maps = static:$VUID" \
  "virtual_gid_maps = static:$VGID" \
  "relayhost = [127.0.0.1]:$SUPPLIER_PORT" \
  "default_transport = smtp" \
  "relay_transport = smtp" \
  "smtp_tls_security_level = none" \
  "smtp_dns_support_level = disabled" \
  "minimal_backoff_time = 2s" \
  "maximal_backoff_time = 5s" \
  "queue_run_delay = 2s" \
  "maillog_file = $POSTFIX_LOG"
newaliases
if postfix status >/dev/null 2>&1; then postfix reload >&2; else postfix start >&2; fi

# dovecot: a configuration of its own (not Debian's conf.d), IMAP on loopback, no TLS, one user from a file.
install -m 0640 -o root -g dovecot /dev/null /etc/dovecot/procura-test.passwd
echo "$MAILBOX@$DOMAIN:{PLAIN}$PASSWORD" >/etc/dovecot/procura-test.passwd
cat >"$DOVECOT_CONF" <<EOF
protocols = imap
listen = 127.0.0.1
base_dir = /run/dovecot-procura-test
ssl = no
# Plaintext passwords on loopback only: this server is for tests and listens nowhere else.
disable_plaintext_auth = no
auth_mechanisms = plain login
log_path = /var/log/procura-dovecot.log
mail_location = maildir:$VHOSTS/%d/%n
first_valid_uid = $VUID
last_valid_uid = $VUID
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u /etc/dovecot/procura-test.passwd
}
userdb {
  driver = static
  args = uid=$VUID gid=$VGID home=$VHOSTS/%d/%n
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = 143
  }
  inet_listener imaps {
    port = 0
  }
}
EOF
if doveadm -c "$DOVECOT_CONF" service status >/dev/null 2>&1; then
  doveadm -c "$DOVECOT_CONF" reload >&2
else
  dovecot -c "$DOVECOT_CONF" >&2
fi

# Both answer before the tests start.
for _ in $(seq 1 50); do
  if (exec 3<>/dev/tcp/127.0.0.1/25) 2>/dev/null && (exec 3<>/dev/tcp/127.0.0.1/143) 2>/dev/null; then
    say "postfix on 127.0.0.1:25, dovecot IMAP on 127.0.0.1:143, mailbox $MAILBOX@$DOMAIN, other domains to 127.0.0.1:$SUPPLIER_PORT"
    echo "export PROCURA_TEST_SMTP_URL=smtp://127.0.0.1:25"
    echo "export PROCURA_TEST_IMAP_URL=imap://$MAILBOX%40$DOMAIN:$PASSWORD@127.0.0.1:143/INBOX"
    echo "export PROCURA_TEST_MAIL_DOMAIN=$DOMAIN"
    echo "export PROCURA_TEST_SUPPLIER_SMTP_PORT=$SUPPLIER_PORT"
    echo "export PROCURA_TEST_MAIL_LOG=$POSTFIX_LOG"
    exit 0
  fi
  sleep 0.2
done
say "postfix or dovecot did not start; see $POSTFIX_LOG and /var/log/procura-dovecot.log"
exit 1
