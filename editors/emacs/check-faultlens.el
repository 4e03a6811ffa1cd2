;;; check-faultlens.el --- headless check of faultlens.el with eglot  -*- lexical-binding: t; -*-

;; Used by server/cli/tests/lsp_emacs.rs:
;;   FAULTLENS_REPO=... FAULTLENS_BIN=... FAULTLENS_FILE=.../mid.c FAULTLENS_FAULT_LINE=22 \
;;   emacs --batch -q -l editors/emacs/check-faultlens.el
;; Opens the file, starts eglot with faultlens, and checks diagnostics, hover
;; and the ranking request.  With FAULTLENS_DIAGNOSIS=1 (a diagnosis.json on
;; disk) it checks the diagnosis instead: its diagnostic, the angelic values in
;; the hover and a textDocument/inlayHint request.  Prints one line per
;; finding and exits 1 when something is missing.

;;; Code:

(setq faultlens-command (list (getenv "FAULTLENS_BIN") "lsp"))
(add-to-list 'load-path (expand-file-name "editors/emacs" (getenv "FAULTLENS_REPO")))
(require 'faultlens)
(require 'seq)
(setq eglot-sync-connect 20)

(defvar check-errors nil)

(defun check-fail (msg)
  (push msg check-errors))

(defun check-wait (pred secs)
  "Pump process output until PRED is non-nil or SECS pass."
  (let ((deadline (+ (float-time) secs)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (funcall pred)))

(defun check-ranking-views (fault server)
  "The #1 diagnostic and the hover of the ranking at line FAULT."
  (let ((top (seq-find (lambda (d)
                         (and (= (line-number-at-pos (flymake-diagnostic-beg d)) fault)
                              (string-match-p "#1 of" (flymake-diagnostic-text d))))
                       (flymake-diagnostics))))
    (if top
        (princ (format "DIAGNOSTIC %d %s %s\n" fault (flymake-diagnostic-type top) (flymake-diagnostic-text top)))
      (check-fail "no #1 diagnostic on the faulty line")))
  (goto-char (point-min))
  (forward-line (1- fault))
  (back-to-indentation)
  (let* ((hover (jsonrpc-request server :textDocument/hover (eglot--TextDocumentPositionParams)))
         (text (plist-get (plist-get hover :contents) :value)))
    (if (and text (string-match-p "#1 of" text))
        (princ (format "HOVER %s\n" (car (split-string text "\n"))))
      (check-fail (format "hover lacks the rank: %S" text)))))

(defun check-diagnosis (server fault)
  "The diagnosis at line FAULT: diagnostic, hover, inlay hint."
  (let ((diag (check-wait
               (lambda ()
                 (seq-find (lambda (d)
                             (and (= (line-number-at-pos (flymake-diagnostic-beg d)) fault)
                                  (string-match-p "diagnosis #[0-9]+ (cost" (flymake-diagnostic-text d))))
                           (flymake-diagnostics)))
               30)))
    (if diag
        (princ (format "DIAGNOSIS %d %s\n" fault (flymake-diagnostic-text diag)))
      (check-fail (format "no diagnosis diagnostic on the faulty line; flymake has %S"
                          (mapcar (lambda (d) (cons (line-number-at-pos (flymake-diagnostic-beg d))
                                                    (flymake-diagnostic-text d)))
                                  (flymake-diagnostics))))))
  (goto-char (point-min))
  (forward-line (1- fault))
  (back-to-indentation)
  (let* ((hover (jsonrpc-request server :textDocument/hover (eglot--TextDocumentPositionParams)))
         (text (plist-get (plist-get hover :contents) :value))
         (angelic (and text (seq-find (lambda (l) (string-match-p "(1st run) = .* makes .* pass" l))
                                      (split-string text "\n")))))
    (if angelic
        (princ (format "HOVER-ANGELIC %s\n" angelic))
      (check-fail (format "hover shows no angelic value: %S" text))))
  (let* ((hints (jsonrpc-request server :textDocument/inlayHint
                                 (list :textDocument (eglot--TextDocumentIdentifier)
                                       :range (list :start (list :line 0 :character 0)
                                                    :end (list :line 1000 :character 0)))))
         (hint (seq-find (lambda (h) (= (plist-get (plist-get h :position) :line) (1- fault)))
                         hints)))
    (if hint
        (princ (format "HINT %d %s\n" fault (plist-get hint :label)))
      (check-fail (format "no inlay hint on the faulty line: %S" hints)))))

(condition-case err
    (progn
      (find-file (getenv "FAULTLENS_FILE"))
      (c-mode)
      (apply #'eglot (eglot--guess-contact))
      (let ((server (eglot-current-server))
            (fault (string-to-number (getenv "FAULTLENS_FAULT_LINE"))))
        (unless server (error "eglot did not connect"))
        (unless (check-wait (lambda () (flymake-start) (flymake-diagnostics)) 30)
          (check-fail "no diagnostics"))
        (if (equal (getenv "FAULTLENS_DIAGNOSIS") "1")
            (check-diagnosis server fault)
          (check-ranking-views fault server))
        (let ((ranking (jsonrpc-request server :faultlens/ranking nil)))
          (princ (format "RANKING %s %s\n" (plist-get ranking :measure)
                         (plist-get (plist-get ranking :tests) :failed))))
        (check-wait (lambda () faultlens-last-status) 5)
        (princ (format "STATUS %s\n" (plist-get faultlens-last-status :state)))))
  (error (check-fail (format "error: %S" err))))

(dolist (e check-errors) (princ (format "ERROR %s\n" e)))
(kill-emacs (if check-errors 1 0))

;;; check-faultlens.el ends here
